import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file root's window lifecycle: the records in one index file
/// (``SessionIndex``), written atomically under its own lock; a claim is a
/// `flock` on the scene's `.<id>~claim` file, which the kernel drops when
/// the holder dies. Whether a claim is held is read for every scene at
/// once from `/proc/locks` and the root's listing, never by taking it.
extension SceneDirectory: SceneSessionStorage {
    var sessionIndexPath: String { rootPath + "/" + SessionIndex.fileName }
    private var sessionLockPath: String { sessionIndexPath + ".lock" }

    func claim(_ id: SceneID) throws(SceneStoreError) -> (any SceneClaim)? {
        let path = claimPath(id)
        while true {
            let fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
            if fd == -1 {
                if errno == ENOENT {
                    try Self.prepare(root: root)
                    continue
                }
                if errno == ELOOP { throw .notARegularFile(path: path, found: "symbolic link") }
                throw .io(syscall: "open", path: path, errno: errno)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                let found = FileKind(mode: info.st_mode).description
                close(fd)
                throw .notARegularFile(path: path, found: found)
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                close(fd)
                if code == EINTR { continue }
                if code == EWOULDBLOCK { return nil }
                throw .io(syscall: "flock", path: path, errno: code)
            }
            // Closing a window for good unlinks its claim file: a claim on
            // the unlinked file would hold nothing.
            guard SceneLock.isAtPath(fd, path) else {
                close(fd)
                continue
            }
            return FileClaim(fd: fd)
        }
    }

    func sessionRecords() throws(SceneStoreError) -> [(record: SessionRecord, held: Bool)] {
        let records = try readSessionIndex()
        let held = try heldClaims()
        return records.values.map { ($0, held.contains($0.id)) }
    }

    func updateSessionRecords(
        _ ids: Set<SceneID>, _ change: @Sendable (inout [SceneID: SessionRecord]) -> Void
    ) throws(SceneStoreError) {
        try Self.prepare(root: root)
        let lock = try SceneLock(path: sessionLockPath, scene: Self.sessionsLockName, timeout: lockTimeout, clock: clock)
        defer { lock.unlock() }
        var records = try readSessionIndex()
        let before = records.filter { ids.contains($0.key) }
        var changed = before
        change(&changed)
        guard changed != before else { return }
        for id in ids { records[id] = changed[id] }
        try writeSessionIndex(SessionIndex.encode(records))
    }

    /// Removes the claim file of a scene closed for good (the caller holds
    /// the claim or nobody does): whoever waits to claim it starts over.
    func removeClaim(_ id: SceneID) {
        unlink(claimPath(id))
    }

    private static let sessionsLockName: SceneID = {
        guard let id = try? SceneID("scenestore-sessions") else { preconditionFailure("a valid constant id") }
        return id
    }()

    private func readSessionIndex() throws(SceneStoreError) -> [SceneID: SessionRecord] {
        let path = sessionIndexPath
        guard let data = FileManager.default.contents(atPath: path) else {
            if access(path, F_OK) != 0 && errno == ENOENT { return [:] }
            throw .io(syscall: "read", path: path, errno: errno)
        }
        return try SessionIndex.parse(data, path: path).records
    }

    private func writeSessionIndex(_ bytes: Data) throws(SceneStoreError) {
        let temp = sessionIndexPath + ".tmp-" + randomToken()
        let fd = try syscall("open", path: temp) {
            open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        defer { close(fd) }
        do {
            try writeAll(bytes, to: fd, path: temp)
            try syscall("fsync", path: temp) { fsync(fd) }
            try syscall("rename", path: sessionIndexPath) { rename(temp, sessionIndexPath) }
        } catch {
            unlink(temp)
            throw error
        }
        try syncDirectory()
    }

    /// The scenes whose claim file some live process holds a `flock` on:
    /// one listing of the root (names and inodes) and one read of
    /// `/proc/locks`, whatever the number of scenes.
    private func heldClaims() throws(SceneStoreError) -> Set<SceneID> {
        var rootInfo = stat()
        guard stat(rootPath, &rootInfo) == 0 else {
            if errno == ENOENT { return [] }
            throw .io(syscall: "stat", path: rootPath, errno: errno)
        }
        let locked = Set(SceneLock.flockHolders().lazy.filter { $0.device == UInt64(rootInfo.st_dev) }.map(\.inode))
        guard !locked.isEmpty else { return [] }
        guard let directory = opendir(rootPath) else { throw .io(syscall: "opendir", path: rootPath, errno: errno) }
        defer { closedir(directory) }
        let suffix = Self.separator + Self.claimSuffix
        var held: Set<SceneID> = []
        while let entry = readdir(directory) {
            guard locked.contains(UInt64(entry.pointee.d_ino)) else { continue }
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard name.hasPrefix("."), name.hasSuffix(suffix),
                  let id = try? SceneID(String(name.dropFirst().dropLast(suffix.count))) else { continue }
            held.insert(id)
        }
        return held
    }
}

/// A `flock` held on a scene's claim file until ``release()``.
private final class FileClaim: SceneClaim, Sendable {
    private let fd: Locked<Int32>

    init(fd: Int32) {
        self.fd = Locked(fd)
    }

    func release() {
        abandon()
    }

    func abandon() {
        let held = fd.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if held >= 0 { close(held) }
    }

    deinit { abandon() }
}
