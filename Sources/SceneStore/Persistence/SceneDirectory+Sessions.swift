internal import CSceneSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file root's window lifecycle: the records in one index file
/// (``SessionIndex``), written atomically under its own lock; a claim is a
/// write lock on the scene's `.<id>~claim` file, an open file description
/// lock (`F_OFD_SETLK`) the kernel drops when the holder closes it or dies.
/// Whether a claim is held is asked of each claim file with
/// `F_OFD_GETLK`, never by taking it (a launch that probed by taking
/// could make another launch's claim fail), and never from `/proc/locks`,
/// which is read a page at a time and skips entries when other processes'
/// locks come and go between the pages.
extension SceneDirectory: SceneSessionStorage {
    var sessionIndexPath: String { rootPath + "/" + SessionIndex.fileName }
    private var sessionLockPath: String { sessionIndexPath + ".lock" }

    func claim(_ id: SceneID) throws(SceneStoreError) -> (any SceneClaim)? {
        let path = claimPath(id)
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
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
            if scenestore_ofd_try_lock(fd) != 0 {
                let code = errno
                close(fd)
                if code == EINTR { continue }
                if code == EAGAIN || code == EACCES { return nil }
                throw .io(syscall: "fcntl(F_OFD_SETLK)", path: path, errno: code)
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
        // Only a window the index says is open can be held for more than
        // a moment: one that quit let go of its claim after the index said
        // so, and a reopen claims before it says so again (a launch that
        // lists it meanwhile finds the claim taken when it reopens; the
        // claim decides, the list only offers). A probe costs an open, 4 µs:
        // 40 ms for 10 000 quit windows otherwise.
        return records.values.map { ($0, $0.open && isClaimed($0.id)) }
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

    /// The records of the index, read as a scene file is
    /// (``openToRead(_:)``): never through a symbolic link, never blocking
    /// on a FIFO, its size checked before a byte is read.
    /// - Throws: ``SceneStoreError/notARegularFile(path:found:)`` for a
    ///   symbolic link (not followed) or anything but a regular file;
    ///   ``SceneStoreError/io(syscall:path:errno:)`` with `EFBIG` for an
    ///   index over ``SessionIndex/maxBytes``. Each leaves it as it is.
    private func readSessionIndex() throws(SceneStoreError) -> [SceneID: SessionRecord] {
        let path = sessionIndexPath
        let fd: Int32
        switch try openToRead(path) {
        case .opened(let opened): fd = opened
        case .missing: return [:]
        case .symbolicLink: throw .notARegularFile(path: path, found: FileKind(mode: S_IFLNK).description)
        }
        defer { close(fd) }
        var info = stat()
        try syscall("fstat", path: path) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .notARegularFile(path: path, found: FileKind(mode: info.st_mode).description)
        }
        guard info.st_size <= SessionIndex.maxBytes else { throw .io(syscall: "read", path: path, errno: EFBIG) }
        return try SessionIndex.parse(readWhole(fd, size: Int(info.st_size), path: path), path: path).records
    }

    /// Replaces the index atomically and durably (a new temp file, `fsync`,
    /// `rename` over the index: a symbolic link there is replaced, never
    /// written through). An index over ``SessionIndex/maxBytes`` is refused
    /// before anything is written (`EFBIG`): it could not be read back.
    private func writeSessionIndex(_ bytes: Data) throws(SceneStoreError) {
        guard bytes.count <= SessionIndex.maxBytes else {
            throw .io(syscall: "write", path: sessionIndexPath, errno: EFBIG)
        }
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

    /// Whether some open file description, in this process or another,
    /// holds the claim on scene `id`: one open and one `F_OFD_GETLK`.
    private func isClaimed(_ id: SceneID) -> Bool {
        let fd = open(claimPath(id), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        while true {
            let held = scenestore_ofd_is_locked(fd)
            if held >= 0 { return held == 1 }
            // Not knowing counts as held: a window is never offered twice.
            guard errno == EINTR else { return true }
        }
    }
}

/// An OFD write lock held on a scene's claim file until ``release()``.
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
        guard held >= 0 else { return }
        // Unlocked before the close, so the claim is free when this
        // returns even while a child this process is spawning still shares
        // the descriptor (until its exec closes it).
        scenestore_ofd_unlock(held)
        close(held)
    }

    deinit { abandon() }
}
