import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Faults from outside: a lock holder that stopped, a root that turned
/// read-only. Each gives a typed error, keeps the value in memory, and
/// saves it once the fault is gone.
// Hang guard: its slowest test took 6 s here (2 cores); 3 minutes, as TSan runs it several times slower.
@Suite(.timeLimit(.minutes(3))) struct FaultTests {
    @Test func aStoppedLockHolderTimesOutNamingItsPID() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, lockTimeout: .milliseconds(300)))
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        let file = fixture.root.appendingPathComponent("main.scene")
        let saved = try Data(contentsOf: file)

        // Another process holds the scene's lock, stopped.
        let holder = try LockHolder(scene: "main", root: fixture.root)
        defer { holder.release() }
        holder.stop()

        try store.set(2, forKey: "k")
        await #expect {
            try await store.flush()
        } throws: { error in
            guard case .lockTimeout(let scene, let pid, _)? = error as? SceneStoreError else { return false }
            return scene == "main" && pid == holder.pid
        }
        #expect(try Data(contentsOf: file) == saved, "nothing written while the lock was held")
        #expect(store.value(forKey: "k", default: 0) == 2)

        holder.release()
        try await store.flush()
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").value(forKey: "k", default: 0) == 2)
        await fixture.tearDown()
    }

    /// A read-only file system (a tmpfs remounted read-only; mounting needs
    /// root, which CI has): the scene still loads, a save fails with
    /// EROFS, and after remounting read-write the same store saves it all.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aReadOnlyRootFailsSavesTypedAndLosesNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let disk = try TmpfsMount(at: fixture.directory.appendingPathComponent("ro-disk"), size: "1m")
        defer { disk.unmount() }
        let root = disk.path.appendingPathComponent("scenes")
        let configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .inotify)
        let first = try await SceneRegistry(root: root, configuration: configuration)
        try await first.store(for: "main").set("before", forKey: "kept")
        try await first.close()

        #expect(disk.remount(readOnly: true))
        let registry = try await SceneRegistry(root: root, configuration: configuration)
        let store = try await registry.store(for: "main")
        #expect(store.value(forKey: "kept", default: "") == "before", "a read-only root still loads")
        try store.set("during", forKey: "new")
        await #expect {
            try await store.flush()
        } throws: { error in
            guard case .io(_, _, let code)? = error as? SceneStoreError else { return false }
            return code.rawValue == EROFS
        }
        #expect(store.lastSaveError != nil)
        #expect(store.value(forKey: "new", default: "") == "during")

        #expect(disk.remount(readOnly: false))
        try await store.flush()
        #expect(store.lastSaveError == nil)
        try await registry.close()
        let reopened = try await SceneRegistry(root: root, configuration: configuration)
        await #expect(try reopened.store(for: "main").snapshot == ["kept": .string("before"), "new": .string("during")])
        try await reopened.close()
        await fixture.tearDown()
    }
}
