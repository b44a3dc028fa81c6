import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore

/// The save in one step (a record appended over the version a store
/// holds) never waits for the scene's lock: a flush that is one append
/// runs on the caller's thread, which must not sit in a lock wait. While
/// another process holds the lock, it gives way at once, and the save
/// goes the long way, waiting for the lock as every save does.
@Suite struct AppendLockTests {

    /// With a lock timeout of a millisecond, a wait would end in
    /// `lockTimeout`; giving way returns `false`, having written nothing.
    /// Once the lock is free, the same call appends.
    @Test func theAppendInOneStepGivesWayToAHeldLock() async throws {
        let fixture = try await SceneStoreFixture()
        let id = SceneID("main")
        let directory = SceneDirectory(root: fixture.root, lockTimeout: .milliseconds(1))
        try SceneDirectory(root: fixture.root).prepare()
        let v1 = SceneFile(
            scene: "main", generation: 1, incarnation: "00000000000000aa",
            writer: WriterIdentity(pid: 42, token: "00000000000000bb"), values: ["a": .int(1)])
        var v2 = v1
        v2.generation = 2
        v2.values["a"] = .int(2)
        var encoder = SceneFileEncoder()
        let document = encoder.encode(v1)
        encoder.written(v1.version)
        let record = SceneFileRecord(generation: 2, writer: v1.writer, set: [("a", .int(2))], removed: [])
        let writing = SaveWriting(encoder: Locked(encoder), position: nil) { _ in }
        let path = URL(fileURLWithPath: directory.scenePath(id))
        try document.write(to: path)

        let held = try SceneDirectory(root: fixture.root).lock(.scene(id))
        #expect(try directory.commit(id, record, over: v1, using: writing) == .refused)
        #expect(try Data(contentsOf: path) == document, "written under another's lock")
        held.unlock()

        #expect(try directory.commit(id, record, over: v1, using: writing) == .appended)
        #expect(try SceneFile.decode(Data(contentsOf: path)).get() == v2)
    }

    /// A store whose next save is one append, flushed while another
    /// process holds the lock past the timeout: the flush waits and fails
    /// with `lockTimeout` (it did not append on its own), the value stays
    /// pending, and the next flush writes it.
    @Test func aFlushThatCouldAppendStillWaitsForTheLock() async throws {
        var configuration = SceneRegistry.Configuration.testing
        configuration.lockTimeout = .milliseconds(50)
        let fixture = try await SceneStoreFixture(configuration: configuration)
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "a")
        try await store.flush()
        let path = fixture.root.appendingPathComponent("main.scene")
        let before = try Data(contentsOf: path)

        let held = try SceneDirectory(root: fixture.root).lock(.scene("main"))
        try store.set(2, forKey: "a")
        await #expect(throws: SceneStoreError.self) { try await store.flush() }
        #expect(try Data(contentsOf: path) == before, "written under another's lock")
        held.unlock()

        try await store.flush()
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.value(forKey: "a", as: Int.self) == 2)
        await fixture.tearDown()
    }
}
