import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// A real full disk: a 256 KiB tmpfs. Mounting needs root, which CI has.
@Suite(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
struct FullDiskTests {
    @Test func aFullDiskFailsTheFlushAndLosesNothing() async throws {
        let fixture = try SceneStoreFixture()
        let disk = try TmpfsMount(at: fixture.directory.appendingPathComponent("small-disk"), size: "256k")
        defer { disk.unmount() }
        let mountPoint = disk.path

        let root = mountPoint.appendingPathComponent("scenes")
        let registry = try SceneRegistry(root: root, configuration: .testing)
        let store = try registry.store(for: "main")
        try store.set("before", forKey: "kept")
        try await store.flush()
        let durable = try Data(contentsOf: root.appendingPathComponent("main.json"))

        // Fill the disk.
        let filler = mountPoint.appendingPathComponent("filler")
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = try FileHandle(forWritingTo: filler)
        while (try? handle.write(contentsOf: Data(count: 4096))) != nil {}
        try? handle.close()

        try store.set(String(repeating: "x", count: 64 * 1024), forKey: "big")
        await #expect(throws: SceneStoreError.self) { try await store.flush() }
        do {
            try await store.flush()
        } catch let error as SceneStoreError {
            guard case .io(_, _, let code) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(code == ENOSPC)
        }
        // Memory still has the value, the old file is intact, no temp file is left.
        #expect(store.value(forKey: "big", default: "").count == 64 * 1024)
        #expect(try Data(contentsOf: root.appendingPathComponent("main.json")) == durable)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).allSatisfy { !$0.contains("~tmp-") })

        // Space again: the next flush writes everything.
        try FileManager.default.removeItem(at: filler)
        try await store.flush()
        try await registry.close()
        let reopened = try SceneRegistry(root: root, configuration: .testing)
        let restored = try reopened.store(for: "main")
        #expect(restored.value(forKey: "kept", default: "") == "before")
        #expect(restored.value(forKey: "big", default: "").count == 64 * 1024)
        try await reopened.close()
        await fixture.tearDown()
    }
}
