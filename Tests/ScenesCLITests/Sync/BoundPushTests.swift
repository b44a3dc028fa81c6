import Foundation
import SceneNavigation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension CrossProcessSync {
    /// Two windows of an app (real processes, each with an `@Observable`
    /// model bound to one path key) push at a person's pace, 1-15 ms
    /// apart, at the same time, then quit: every element of both is in the
    /// stored path, in each window's order, round after round.
    @Suite struct BoundPushTests {
        static let rounds = 5
        static let pushes = 12

        enum Windows: String, CaseIterable, Sendable {
            /// Both read Int and String elements (two windows of one app).
            case sameApp
            /// One reads Int elements only (an older build of the app).
            case oneIntOnly
        }

        // Hang guard: it took 16 s here (2 cores); 3 minutes, as the load step runs it several times slower.
        @Test(.timeLimit(.minutes(3)), arguments: Windows.allCases)
        func twoWindowsPushingAtOnceKeepEveryElement(_ windows: Windows) async throws {
            let types = ScenePathTypes([.init(Int.self), .init(String.self)])
            var kept: [Int] = []
            for round in 0..<Self.rounds {
                let fixture = try await SceneStoreFixture()
                let seed = try await SceneRegistry(root: fixture.root, configuration: .testing)
                try await seed.store(for: "main").set(try scenePath(1, "kept?").encoded(types: types), forKey: "mixed.path")
                try await seed.close()
                let arguments = ["bound-push", "--scene", "main", "--count", "\(Self.pushes)"]
                let left = try RunningScenes(arguments + ["--tag", "L"], root: fixture.root, program: .lab)
                let right = try RunningScenes(
                    arguments + (windows == .sameApp ? ["--tag", "R"] : ["--int-base", "100"]), root: fixture.root, program: .lab)
                let logs = [LineLog(left), LineLog(right)]
                for log in logs {
                    #expect(await log.next(within: .seconds(60)) { $0.hasPrefix("ready") } != nil)
                }
                left.send("go")
                right.send("go")
                #expect(await left.exitStatus() == 0)
                #expect(await right.exitStatus() == 0)
                for log in logs {
                    while await log.next(within: .seconds(30)) != nil {}
                    #expect(!log.lines.contains { $0.hasPrefix("error") }, "\(log.lines)")
                }

                let reader = try await SceneRegistry(root: fixture.root, configuration: .testing)
                let data = try await #require(try reader.store(for: "main").value(forKey: "mixed.path", as: Data.self))
                let path = try ScenePath.restore(from: data, types: types, policy: .strict).path
                try await reader.close()
                let elements = path.map { element in
                    element as? String ?? (element as? Int).map(String.init) ?? "?"
                }
                let leftPushes = (0..<Self.pushes).map { "L-\($0)" }
                let rightPushes = (0..<Self.pushes).map { windows == .sameApp ? "R-\($0)" : "\(100 + $0)" }
                #expect(Array(elements.prefix(2)) == ["1", "kept?"], "round \(round): \(elements)")
                #expect(elements.filter(leftPushes.contains) == leftPushes, "round \(round): \(elements)")
                #expect(elements.filter(rightPushes.contains) == rightPushes, "round \(round): \(elements)")
                kept.append(elements.count)
                await fixture.tearDown()
            }
            print("two bound windows, \(windows): kept \(kept) of \(2 + 2 * Self.pushes) elements per round")
        }

        private func scenePath(_ number: Int, _ text: String) -> ScenePath {
            var path = ScenePath()
            path.append(number)
            path.append(text)
            return path
        }
    }
}
