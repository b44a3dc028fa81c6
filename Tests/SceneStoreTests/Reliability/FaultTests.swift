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
        let fixture = try SceneStoreFixture(configuration: .init(savePolicy: .onFlush, lockTimeout: .milliseconds(300)))
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        let file = fixture.root.appendingPathComponent("main.json")
        let saved = try Data(contentsOf: file)

        // util-linux flock, started in the background by a shell that exits
        // at once, takes the scene's lock and (-o: without it) starts a
        // shell that prints the holder's pid and its own, then sleeps. The
        // holder is not our child, so nothing here waits for it while it is
        // stopped. Started by `spawnChild`: the holder left behind inherits
        // no descriptor of another test's child.
        let output = try cloexecPipe()
        let shell = try spawnChild(
            "/bin/sh", ["-c", #"flock -o "$0" sh -c 'echo $PPID $$; exec sleep 600' &"#,
                        fixture.root.appendingPathComponent(".main~lock").path],
            environment: ProcessInfo.processInfo.environment, descriptors: (nil, output.write.fileDescriptor, nil))
        try output.write.close()
        _ = waitForExit(shell)
        let pids = try #require(firstLine(of: output)).split(separator: " ").compactMap { Int32($0) }
        try #require(pids.count == 2)
        let (holder, sleeper) = (pids[0], pids[1])
        defer { kill(sleeper, SIGKILL) }
        kill(holder, SIGSTOP)
        defer { kill(holder, SIGKILL) }

        try store.set(2, forKey: "k")
        await #expect {
            try await store.flush()
        } throws: { error in
            guard case .lockTimeout(let scene, let pid, _)? = error as? SceneStoreError else { return false }
            return scene == "main" && pid == holder
        }
        #expect(try Data(contentsOf: file) == saved, "nothing written while the lock was held")
        #expect(store.value(forKey: "k", default: 0) == 2)

        kill(holder, SIGKILL)
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
        let fixture = try SceneStoreFixture()
        let disk = try TmpfsMount(at: fixture.directory.appendingPathComponent("ro-disk"), size: "1m")
        defer { disk.unmount() }
        let root = disk.path.appendingPathComponent("scenes")
        let configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .inotify)
        let first = try SceneRegistry(root: root, configuration: configuration)
        try await first.store(for: "main").set("before", forKey: "kept")
        try await first.close()

        #expect(disk.remount(readOnly: true))
        let registry = try SceneRegistry(root: root, configuration: configuration)
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
        let reopened = try SceneRegistry(root: root, configuration: configuration)
        await #expect(try reopened.store(for: "main").snapshot == ["kept": .string("before"), "new": .string("during")])
        try await reopened.close()
        await fixture.tearDown()
    }

    private func firstLine(of output: (read: FileHandle, write: FileHandle)) -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = output.read.readData(ofLength: 1)
            guard let byte = chunk.first else { break }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
