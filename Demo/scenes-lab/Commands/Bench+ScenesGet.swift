import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// The real `scenes get --root R --scene S KEY`, built next to this
    /// executable, as a whole process on a 100-key scene, next to a Swift
    /// program that only imports Foundation (`foundation-floor`, when
    /// built) and `/bin/true`, spawned the same way, interleaved, in the
    /// same run.
    struct ScenesGetFigures: Encodable {
        var runs: Int
        var scenesGetP50Ms: Double
        var trueP50Ms: Double
        /// `nil`: `foundation-floor` is not built.
        var foundationP50Ms: Double?
        /// `scenes get` less `/bin/true`.
        var netP50Ms: Double
        var overTrue: Double
        var overFoundation: Double?

        static func measure(runs: Int, in scratch: URL) async throws -> ScenesGetFigures? {
            guard FileManager.default.isExecutableFile(atPath: scenesExecutable.path) else { return nil }
            let root = scratch.appendingPathComponent("get-scenes")
            let registry = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .none))
            let store = try await registry.store(for: "get")
            for key in 0..<100 { try store.set("value number \(key)", forKey: "key\(key)") }
            try await registry.close()
            var children: [(executable: URL, arguments: [String])] = [
                (scenesExecutable, ["get", "--root", root.path, "--scene", "get", "key0"]),
                (URL(fileURLWithPath: "/bin/true"), []),
            ]
            if FileManager.default.isExecutableFile(atPath: foundationFloorExecutable.path) {
                children.append((foundationFloorExecutable, []))
            }
            var samples: [[Int]] = children.map { _ in [] }
            for _ in 0..<runs {
                for index in children.indices.shuffled() {
                    let (elapsed, output) = try timedRun(children[index].executable, children[index].arguments)
                    guard index != 0 || output.hasPrefix("value number 0") else {
                        throw failure("scenes get printed \(output.debugDescription)")
                    }
                    samples[index].append(elapsed)
                }
            }
            let getP50 = Summary(nanoseconds: samples[0]).p50Ms
            let trueP50 = Summary(nanoseconds: samples[1]).p50Ms
            let foundationP50 = samples.count > 2 ? Summary(nanoseconds: samples[2]).p50Ms : nil
            return ScenesGetFigures(
                runs: runs, scenesGetP50Ms: getP50, trueP50Ms: trueP50, foundationP50Ms: foundationP50,
                netP50Ms: getP50 - trueP50, overTrue: trueP50 > 0 ? getP50 / trueP50 : 0,
                overFoundation: foundationP50.map { $0 > 0 ? getP50 / $0 : 0 })
        }

        func printTable() {
            emit("")
            emit(String(format: "`scenes get` as a whole process (100-key scene), p50 of %d: %.2f ms; /bin/true spawned the same way %.2f ms (%.1fx, +%.2f ms)",
                        runs, scenesGetP50Ms, trueP50Ms, overTrue, netP50Ms))
            if let foundationP50Ms, let overFoundation {
                emit(String(format: "  a Swift program that only imports Foundation (foundation-floor): %.2f ms; `scenes get` %.2fx that",
                            foundationP50Ms, overFoundation))
            } else {
                emit("  foundation-floor: not measured, \(foundationFloorExecutable.path) is not built (swift build --product foundation-floor)")
            }
        }
    }
}
