import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Two demo windows on one scene pushing onto the same stack at the same
/// instant both keep their screen: each push is applied under the scene
/// lock to the stack as it is on disk, never to a stale copy in memory.
// Hang guard: its slowest test took 4 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8)), .enabled(if: LockHolder.isAvailable, "needs perl"))
struct DemoConcurrentPushTests {
    @Test func twoWindowsPushingWhileTheSceneIsLockedKeepBothElements() async throws {
        let fixture = try await SceneStoreFixture()
        let (left, right) = try await twoDemoWindows(root: fixture.root)

        var pushed: [Int] = []
        for round in 1...3 {
            // Both pushes meet the lock another process holds, so neither
            // window can have seen the other's before its own is applied.
            let holder = try LockHolder(scene: "main", root: fixture.root)
            let values = (round * 10 + 1, round * 10 + 2)
            left.send("push \(values.0)")
            right.send("push \(values.1)")
            #expect(await left.readAllInput())
            #expect(await right.readAllInput())
            holder.release()
            pushed += [values.0, values.1]
            let all = Set(pushed.map(MixedElement.number))
            for window in [left, right] {
                let converged = await window.lines.first(within: .seconds(30)) { line in
                    DemoLine(line).map { Set($0.stacks.mixed) == all } ?? false
                }
                #expect(converged != nil, "round \(round): a window never showed all of \(pushed)")
            }
        }
        left.send("quit")
        right.send("quit")
        #expect(await left.exitStatus() == 0)
        #expect(await right.exitStatus() == 0)

        let third = try RunningScenes(["run", "--scene", "main"], root: fixture.root)
        third.send("show")
        let restored = try #require(await third.lines.first(within: .seconds(30)).flatMap(DemoLine.init))
        #expect(restored.stacks.mixed.count == pushed.count)
        #expect(Set(restored.stacks.mixed) == Set(pushed.map(MixedElement.number)))
        third.send("quit")
        _ = await third.exitStatus()
    }
}
