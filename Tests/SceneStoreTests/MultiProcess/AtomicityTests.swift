import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

@Suite struct AtomicityTests {
    /// A writer saving in a loop is killed with SIGKILL at random moments,
    /// hundreds of times (300 with `SCENESTORE_SOAK=full`, 100 otherwise);
    /// after each kill the scene must load, complete and consistent (the
    /// three keys of one save always agree).
    @Test(.timeLimit(.minutes(5)))
    func killedWriterAlwaysLeavesALoadableCompleteScene() async throws {
        let fixture = try SceneStoreFixture()
        var progressed = 0
        let rounds = Soak.count(quick: 100, full: 300)
        for round in 0..<rounds {
            let writer = try RunningScenes(
                ["stress", "--scene", "s", "--count", "0", "--payload", "4096"], root: fixture.root, program: .lab)
            // Wait until the writer is up, then let it run a random while.
            _ = await writer.lines.first { $0.hasPrefix("ready") }
            let pause = UInt32.random(in: 0...4000)
            try await Task.sleep(for: .microseconds(Int(pause)))
            writer.kill()
            _ = await writer.exitStatus()

            let registry = try SceneRegistry(root: fixture.root, configuration: .testing)
            let store = try await registry.store(for: "s")
            #expect(store.lastRecovery == nil, "round \(round): the scene file was damaged")
            let values = store.snapshot
            if let counter = store.value(forKey: "counter", as: Int.self) {
                #expect(store.value(forKey: "double", as: Int.self) == counter * 2, "round \(round)")
                let filler = try #require(store.value(forKey: "filler", as: Data.self))
                #expect(filler == Data(repeating: UInt8(truncatingIfNeeded: counter), count: 4096), "round \(round)")
                if counter > 0 { progressed += 1 }
            } else {
                #expect(values.isEmpty, "round \(round): a partial state \(values.keys.sorted())")
            }
            registry.abandon()
        }
        // The kills landed while saves were happening, not only before them.
        #expect(progressed > rounds / 6)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)
            .filter { $0.contains("~tmp-") }
        #expect(leftovers.count <= 1, "opening cleans what killed writers left: \(leftovers)")
    }
}
