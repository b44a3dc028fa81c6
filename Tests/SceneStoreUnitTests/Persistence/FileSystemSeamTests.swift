import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// The file root makes every system call through its ``FileSystem``: over
/// ``RelocatedFileSystem`` its root is a path that does not exist and its
/// descriptors are numbers that are not open, so a call that bypassed the
/// seam would fail (or, run as root, create the virtual path, which the
/// test looks for). Saves, a compaction, reading back after a relaunch, a
/// discard and its tombstone, a damaged file's quarantine, the window
/// records and claims, and a listing all run over it.
@Suite struct FileSystemSeamTests {
    @Test func everyCallOfTheFileRootPassesThroughItsFileSystem() async throws {
        let fixture = try await SceneStoreFixture()
        let real = fixture.directory.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let virtual = "/scenestore-seam-\(randomToken())"
        defer { try? FileManager.default.removeItem(atPath: virtual) }
        let system = RelocatedFileSystem(virtualRoot: virtual, realRoot: real.path)
        let configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none)
        let open = { () async throws in
            try await SceneRegistry(root: URL(fileURLWithPath: virtual), configuration: configuration, system: system)
        }

        let first = try await open()
        let main = try await first.store(for: "main")
        // 40 records of 1 KiB: past the 16 KiB slack, so at least one compaction.
        for round in 0..<40 {
            try main.set(String(repeating: "\(round % 10)", count: 1024), forKey: "text")
            try main.set(round, forKey: "round")
            try await main.flush()
        }
        let window = try await first.newScene(title: "seam")
        try window.set(true, forKey: "shown")
        try await window.flush()
        let gone = try await first.store(for: "gone")
        try gone.set(1, forKey: "k")
        try await gone.flush()
        try await first.discard("gone")
        try await first.close()

        let scene = real.appendingPathComponent("main.scene")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: scene.path)[.size] as? Int)
        #expect(size < 40 * 1024, "no compaction: the file holds every record (\(size) bytes)")
        try Data("not a scene".utf8).write(to: real.appendingPathComponent("damaged.scene"))

        let second = try await open()
        let reopened = try await second.store(for: "main")
        #expect(reopened.value(forKey: "round", default: -1) == 39)
        #expect(reopened.value(forKey: "text", default: "") == String(repeating: "9", count: 1024))
        #expect(Set(try await second.sceneIDs()) == ["damaged", "main", window.id])
        let damaged = try await second.store(for: "damaged")
        #expect(damaged.snapshot.isEmpty)
        #expect(damaged.lastQuarantined != nil)
        let sessions = try await second.sessions()
        #expect(sessions.map(\.id) == [window.id])
        let restored = try #require(try await second.reopen(window.id))
        #expect(restored.value(forKey: "shown", default: false))
        try await second.closeForGood(window.id)
        try await second.close()

        #expect(!FileManager.default.fileExists(atPath: virtual), "a call bypassed the file system and made the virtual root")
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: real.appendingPathComponent("quarantine").path)
        #expect(quarantined.count == 1)
        #expect(FileManager.default.fileExists(atPath: real.appendingPathComponent(".gone~discarded").path) == false)
        await fixture.tearDown()
    }
}
