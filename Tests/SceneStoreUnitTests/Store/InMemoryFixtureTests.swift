import Foundation
import SceneStoreTesting
import Testing

/// `SceneStoreFixture(inMemory:)`: a root in `/dev/shm` that runs the file
/// root's own code, and no directory left behind there.
@Suite struct InMemoryFixtureTests {
    @Test(.enabled(if: access("/dev/shm", W_OK) == 0, "no /dev/shm"))
    func aRootInMemoryHoldsTheScenesFilesAndIsRemovedAfterwards() async throws {
        // What a killed test process left: no process has that pid.
        let abandoned = URL(fileURLWithPath: "/dev/shm/scenestore-2147483647-left\(getpid())")
        try FileManager.default.createDirectory(at: abandoned, withIntermediateDirectories: false)
        let fixture = try await SceneStoreFixture(inMemory: true)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path), "an abandoned directory is removed")
        #expect(fixture.directory.path.hasPrefix("/dev/shm/scenestore-\(getpid())-"))

        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        #expect(FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent("main.scene").path))
        await fixture.tearDown()
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path))
    }
}
