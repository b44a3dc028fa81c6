import Foundation
import SceneStore
import SceneStoreTesting
import Testing
import TestSupport

/// A real full disk: a 256 KiB tmpfs. Mounting needs root, which CI has.
@Suite(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
struct FullDiskTests {
    @Test func aFullDiskFailsTheFlushAndLosesNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let disk = try TmpfsMount(at: fixture.directory.appendingPathComponent("small-disk"), size: "256k")
        defer { disk.unmount() }
        let mountPoint = disk.path

        let root = mountPoint.appendingPathComponent("scenes")
        let registry = try await SceneRegistry(root: root, configuration: .testing)
        let store = try await registry.store(for: "main")
        try store.set("before", forKey: "kept")
        try await store.flush()
        let durable = try Data(contentsOf: root.appendingPathComponent("main.scene"))

        // Fill the disk.
        let filler = try fillDisk(at: mountPoint)

        try store.set(String(repeating: "x", count: 64 * 1024), forKey: "big")
        await #expect(throws: SceneStoreError.self) { try await store.flush() }
        do {
            try await store.flush()
        } catch let error as SceneStoreError {
            guard case .io(_, _, let code) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(code.rawValue == ENOSPC)
        }
        // Memory still has the value, the old file is intact, no temp file is left.
        #expect(store.value(forKey: "big", default: "").count == 64 * 1024)
        #expect(try Data(contentsOf: root.appendingPathComponent("main.scene")) == durable)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).allSatisfy { !$0.contains("~tmp-") })

        // Space again: the next flush writes everything.
        try FileManager.default.removeItem(at: filler)
        try await store.flush()
        try await registry.close()
        let reopened = try await SceneRegistry(root: root, configuration: .testing)
        let restored = try await reopened.store(for: "main")
        #expect(restored.value(forKey: "kept", default: "") == "before")
        #expect(restored.value(forKey: "big", default: "").count == 64 * 1024)
        try await reopened.close()
        await fixture.tearDown()
    }
}

extension FullDiskTests {
    /// An update whose save fails keeps its value in memory, as its
    /// documentation says, and a save is scheduled for it: the value
    /// reaches the disk once there is space, with nobody calling flush.
    @Test func anUpdateWhoseSaveFailedIsSavedLaterWithoutAFlush() async throws {
        let fixture = try await SceneStoreFixture()
        let disk = try TmpfsMount(at: fixture.directory.appendingPathComponent("small-disk"), size: "256k")
        defer { disk.unmount() }
        let root = disk.path.appendingPathComponent("scenes")
        let clock = ManualClock()
        var configuration = SceneRegistry.Configuration(savePolicy: .writeThrough, watcher: .none)
        configuration.clock = clock
        let registry = try await SceneRegistry(root: root, configuration: configuration)
        let store = try await registry.store(for: "main")
        try store.set("before", forKey: "kept")
        try await store.flush()
        let watching = try await SceneRegistry(root: root, configuration: .testing)
        let saved = try await watching.store(for: "main").changes()

        let filler = try fillDisk(at: disk.path)

        let big = String(repeating: "x", count: 64 * 1024)
        await #expect(throws: SceneStoreError.self) { try await store.update(forKey: "big", default: "") { _ in big } }
        try FileManager.default.removeItem(at: filler)
        // A retry that failed while the disk was still full comes after
        // the back-off: move the clock past it.
        await clock.advance(by: .seconds(1))
        #expect(await saved.first { $0.key == "big" && $0.newValue == .string(big) } != nil, "the update was never saved")
        try await watching.close()
        try await registry.close()
        await fixture.tearDown()
    }
}

extension FullDiskTests {
    /// A `newScene` that fails on a full disk (its record, longer than
    /// the 4 KiB of padding the windows' scene keeps, cannot be appended)
    /// leaves nothing: no claim file, no record, no temp file; once there
    /// is space, the next one succeeds. 10 rounds.
    @Test func aNewSceneThatFailsOnAFullDiskLeavesNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let disk = try TmpfsMount(at: fixture.directory.appendingPathComponent("small-disk"), size: "256k")
        defer { disk.unmount() }
        let root = disk.path.appendingPathComponent("scenes")
        let registry = try await SceneRegistry(root: root, configuration: .testing)
        _ = try await registry.newScene(title: "first")
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: root.path))

        let filler = try fillDisk(at: disk.path)

        for round in 0..<10 {
            await #expect(throws: SceneStoreError.self, "round \(round)") {
                _ = try await registry.newScene(title: String(repeating: "t", count: 5000))
            }
            let after = Set(try FileManager.default.contentsOfDirectory(atPath: root.path))
            #expect(after == before, "round \(round): left \(after.subtracting(before).sorted())")
        }
        #expect(try await registry.sessions().count == 1)
        try FileManager.default.removeItem(at: filler)
        _ = try await registry.newScene()
        #expect(try await registry.sessions().count == 2)
        try await registry.close()
        await fixture.tearDown()
    }
}

/// Fills the file system at `directory` with one file, written until a
/// write fails (the disk is full); remove it to make space again.
private func fillDisk(at directory: URL) throws -> URL {
    let filler = directory.appendingPathComponent("filler")
    _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
    let handle = try FileHandle(forWritingTo: filler)
    while (try? handle.write(contentsOf: Data(count: 4096))) != nil {}
    try? handle.close()
    return filler
}
