import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// The lock file and the scene file stay open between saves
/// (``KeptDescriptors``): a save uses a kept descriptor only while the
/// path still names its file, a kept lock file holds nobody back once it
/// is deleted, and a registry's close leaves nothing open.
@Suite struct KeptDescriptorTests {

    /// A process that keeps a deleted lock file open, unlocked, while it
    /// holds a `flock` on another file of the root (a window's claim) is
    /// no holder of the deleted version: a creator of the new lock file
    /// must not give way to it (it would, until its lock timeout).
    @Test func aKeptDeletedLockFileHoldsNobodyBack() throws {
        let fixture = try SceneStoreFixture()
        try SceneDirectory.prepare(root: fixture.root)
        let path = fixture.root.path + "/.main~lock"
        let old = try open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(old) }
        #expect(unlink(path) == 0)
        let claim = try open(fixture.root.path + "/.main~claim", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(claim) }
        #expect(flock(claim, LOCK_EX | LOCK_NB) == 0)
        let new = try open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(new) }

        #expect(SceneLock.holderOfDeletedVersion(of: path, fd: new) == nil, "an unlocked deleted file taken for a holder")

        // Locked, the same deleted file is a holder.
        #expect(flock(old, LOCK_EX | LOCK_NB) == 0)
        #expect(SceneLock.holderOfDeletedVersion(of: path, fd: new) == getpid())
    }

    /// A lock file deleted between two saves: the second lock finds the
    /// path names another file, closes the kept descriptor of the deleted
    /// one and locks the file at the path.
    @Test func aLockFileReplacedBetweenSavesIsOpenedAnew() throws {
        let fixture = try SceneStoreFixture()
        try SceneDirectory.prepare(root: fixture.root)
        let directory = SceneDirectory(root: fixture.root)
        let id = try SceneID("main")
        let path = directory.lockPath(id)
        // The creator's locked descriptor is open for writing and never
        // kept; the one it opened by name is, and the next lock uses it.
        try directory.lock(id).unlock()
        let deleted = try identity(of: path)
        #expect(descriptors(of: deleted) == 1, "the creator's named descriptor is not kept")
        try directory.lock(id).unlock()
        #expect(descriptors(of: deleted) == 1, "the lock file's descriptor is not kept, or kept twice")

        // Held open here too, so that the new lock file cannot get its inode.
        let old = try open(path, O_RDONLY | O_CLOEXEC, 0)
        defer { close(old) }
        #expect(unlink(path) == 0)
        let lock = try directory.lock(id)
        #expect(descriptors(of: deleted) == 1, "the deleted lock file is still kept open")
        #expect(try heldByOther(path), "the file at the path is not the one locked")
        lock.unlock()
        // It made the new file: its named descriptor is kept, not the one
        // open for writing.
        #expect(try descriptors(of: identity(of: path)) == 1)
    }

    /// A scene file replaced by another writer (here by hand, with the same
    /// bytes) between two appends: the second append goes to the file at
    /// the path, not to the replaced one this process kept open, and is
    /// synced through a descriptor of that file (the one kept after it).
    @Test func anAppendAfterTheFileWasReplacedGoesToTheNewFile() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        for value in 1...3 {
            try store.set(value, forKey: "a")
            try await store.flush()
        }
        let path = fixture.root.appendingPathComponent("main.json").path
        let replaced = fixture.root.appendingPathComponent("replaced.json").path
        #expect(link(path, replaced) == 0)
        let copy = fixture.root.appendingPathComponent("copy.json")
        try Data(contentsOf: URL(fileURLWithPath: path)).write(to: copy)
        #expect(rename(copy.path, path) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: replaced))
        let (old, new) = try (identity(of: replaced), identity(of: path))

        try store.set(4, forKey: "b")
        try await store.flush()
        #expect(descriptors(of: old) == 0, "the replaced file is still kept open")
        #expect(descriptors(of: new) == 1)

        #expect(try Data(contentsOf: URL(fileURLWithPath: replaced)) == before, "appended to the replaced file")
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.value(forKey: "a", as: Int.self) == 3)
        #expect(relaunched.value(forKey: "b", as: Int.self) == 4)
        await fixture.tearDown()
    }

    /// After saves that keep both files open (read-only: a file open for
    /// writing would keep its file system from being remounted read-only),
    /// closing the registry closes them.
    @Test func closingTheRegistryClosesTheKeptDescriptors() async throws {
        let fixture = try SceneStoreFixture()
        let registry = fixture.registry
        let store = try await registry.store(for: "main")
        for value in 1...3 {
            try store.set(value, forKey: "a")
            try await store.flush()
        }
        let lock = try identity(of: fixture.root.path + "/.main~lock")
        let scene = try identity(of: fixture.root.path + "/main.json")
        #expect(descriptors(of: lock) == 1)
        #expect(descriptors(of: scene) == 1)
        #expect(descriptors(of: lock, accessMode: O_RDONLY) == 1)
        #expect(descriptors(of: scene, accessMode: O_RDONLY) == 1)

        try await registry.close()
        #expect(descriptors(of: lock) == 0)
        #expect(descriptors(of: scene) == 0)
        await fixture.tearDown()
    }

    // MARK: Helpers

    private func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws -> Int32 {
        let fd = Glibc.open(path, flags, mode)
        guard fd >= 0 else { throw SceneStoreError.io(syscall: "open", path: path, errno: errno) }
        return fd
    }

    private func identity(of path: String) throws -> FileIdentity {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SceneStoreError.io(syscall: "lstat", path: path, errno: errno) }
        return FileIdentity(info)
    }

    /// How many of this process's descriptors are open on the file `identity`
    /// (a lock file its creator made unnamed reads `#INODE (deleted)` in
    /// `/proc/self/fd` even once linked, so the links' text cannot tell).
    private func descriptors(of identity: FileIdentity, accessMode: Int32? = nil) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            var info = stat()
            guard stat("/proc/self/fd/" + name, &info) == 0, FileIdentity(info) == identity else { return false }
            guard let accessMode, let fd = Int32(name) else { return true }
            return fcntl(fd, F_GETFL) & O_ACCMODE == accessMode
        }.count
    }

    /// Whether another descriptor of the file at `path` cannot `flock` it.
    private func heldByOther(_ path: String) throws -> Bool {
        let fd = try open(path, O_RDONLY | O_CLOEXEC, 0)
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) != 0
    }
}
