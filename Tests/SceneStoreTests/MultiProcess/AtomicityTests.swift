import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

@Suite struct AtomicityTests {
    /// A writer saving in a loop is killed with SIGKILL at random moments,
    /// hundreds of times (300 with `SCENESTORE_SOAK=full`, 100 otherwise);
    /// after each kill the scene must load, complete and consistent (the
    /// three keys of one save always agree). Each kill lands while the
    /// writer is in its loop, whatever the machine's speed: after its
    /// first save is on disk, a random 0-4 ms later.
    // Hang guard: it took 42 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
    @Test(.timeLimit(.minutes(8)))
    func killedWriterAlwaysLeavesALoadableCompleteScene() async throws {
        let fixture = try await SceneStoreFixture()
        let scene = fixture.root.appendingPathComponent("s.scene").path
        let rounds = Soak.count(quick: 100, full: 300)
        for round in 0..<rounds {
            let before = Self.inode(scene)
            let writer = try RunningScenes(
                ["stress", "--scene", "s", "--count", "0", "--payload", "4096"], root: fixture.root, program: .lab)
            // Wait until the writer is up and a save of its own is on disk
            // (a save renames a new file into place), then let it run a
            // random while.
            _ = await writer.lines.first { $0.hasPrefix("ready") }
            let deadline = ContinuousClock.now + .seconds(60)
            while Self.inode(scene) == before, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            try #require(Self.inode(scene) != before, "round \(round): no save within 60 s")
            let pause = UInt32.random(in: 0...4000)
            try await Task.sleep(for: .microseconds(Int(pause)))
            writer.kill()
            _ = await writer.exitStatus()

            let registry = try await SceneRegistry(root: fixture.root, configuration: .testing)
            let store = try await registry.store(for: "s")
            #expect(store.lastQuarantined == nil, "round \(round): the scene file was damaged")
            let values = store.snapshot
            if let counter = store.value(forKey: "counter", as: Int.self) {
                #expect(store.value(forKey: "double", as: Int.self) == counter * 2, "round \(round)")
                let filler = try #require(store.value(forKey: "filler", as: Data.self))
                #expect(filler == Data(repeating: UInt8(truncatingIfNeeded: counter), count: 4096), "round \(round)")
            } else {
                #expect(values.isEmpty, "round \(round): a partial state \(values.keys.sorted())")
            }
            registry.abandon()
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)
            .filter { $0.contains("~tmp-") }
        #expect(leftovers.count <= 1, "opening cleans what killed writers left: \(leftovers)")
    }

    /// The inode of the file at `path`; `nil` when there is none.
    private static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }
}
