internal import CSceneSupport
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The file root's window lifecycle: the records in one index file
/// (``SessionIndex``), written atomically under its own lock; a claim is
/// the scenes' lock (``SceneLock``, an exclusive `flock` the kernel drops
/// when the holder closes it or dies) on the scene's `.<id>~claim` file,
/// taken without waiting: a claim file deleted under its holder (a
/// cleaner's `rm .*~*`) lets nobody else claim the window, as a deleted
/// lock file lets no second writer in. The holder also marks the file with
/// a shared open file description lock (`F_OFD_SETLK`, `F_RDLCK`): whether
/// a claim is held is asked of each claim file with `F_OFD_GETLK`, never
/// by taking it (a launch that probed by taking could make another
/// launch's claim fail), and never from `/proc/locks` alone, which is read
/// a page at a time and skips entries when other processes' locks come and
/// go between the pages.
///
/// Every call runs on the root's own queue (``onOwnThread(_:)``), never on
/// the caller's thread; the windows' lock is waited for on the clock,
/// holding no thread (``sessionLock()``). A quit that cannot change the
/// index writes `quit` into each claim file it holds
/// (``FileClaim/markQuit()``), read as a quit while nobody holds the
/// window and emptied by the next claim.
extension SceneDirectory: SceneSessionStorage {
    var sessionIndexPath: String { rootPath + "/" + SessionIndex.fileName }
    private var sessionLockPath: String { sessionIndexPath + ".lock" }
    /// A new index being written: `.scenestore-sessions.tmp-<16 hex>`.
    func sessionIndexTempPath(token: String) -> String { sessionIndexPath + Self.sessionIndexTempInfix + token }
    private static let sessionIndexTempInfix = ".tmp-"

    /// Whether root entry `name` is a temp file of the index (``sessionIndexTempPath(token:)``).
    static func isSessionIndexTemp(_ name: String) -> Bool {
        name.hasPrefix(SessionIndex.fileName + sessionIndexTempInfix)
    }

    func claim(_ id: SceneID) async throws(SceneStoreError) -> (any SceneClaim)? {
        try await onOwnThread { () throws(SceneStoreError) in try claimNow(id) }
    }

    private func claimNow(_ id: SceneID) throws(SceneStoreError) -> (any SceneClaim)? {
        var prepared = false
        while true {
            let lock: SceneLock
            do {
                lock = try SceneLock(path: claimPath(id), scene: id, timeout: nil, clock: clock)
            } catch .lockTimeout {
                return nil
            } catch .io(_, _, let code) where code == .noSuchFileOrDirectory && !prepared {
                try Self.prepare(root: root)
                prepared = true
                continue
            } catch {
                throw error
            }
            // EAGAIN: an older SceneStore holds the claim with an OFD write lock.
            guard try syscall("fcntl(F_OFD_SETLK)", path: lock.path, unless: .resourceTemporarilyUnavailable, .permissionDenied, call: { scenestore_ofd_mark(lock.fd) }) != nil
            else {
                lock.unlock()
                return nil
            }
            do {
                try Self.clearQuitMark(of: lock)
            } catch {
                scenestore_ofd_unlock(lock.fd)
                lock.unlock()
                throw error
            }
            return FileClaim(lock, executor: executor)
        }
    }

    func sessionRecords() async throws(SceneStoreError) -> [(record: SessionRecord, held: Bool)] {
        let records = try await onOwnThread { () throws(SceneStoreError) in try readSessionIndex() }
        // Only a window the index says is open can be held for more than
        // a moment: one that quit let go of its claim after the index said
        // so, and a reopen claims before it says so again (a launch that
        // lists it meanwhile finds the claim taken when it reopens; the
        // claim decides, the list only offers). A probe costs an open, 4 µs:
        // 40 ms for 10 000 quit windows otherwise.
        return await onOwnThread {
            records.values.map { record in
                guard record.open else { return (record, false) }
                switch claimState(record.id) {
                case .held: return (record, true)
                case .free: return (record, false)
                case .quit:
                    var quit = record
                    quit.open = false
                    return (quit, false)
                }
            }
        }
    }

    func updateSessionRecords(
        _ ids: Set<SceneID>, _ change: @Sendable (inout [SceneID: SessionRecord]) -> Void
    ) async throws(SceneStoreError) {
        try await onOwnThread { () async throws(SceneStoreError) in
            try Self.prepare(root: root)
            let lock = try await sessionLock()
            defer { lock.unlock() }
            removeSessionIndexLeftoversOnce()
            try changeSessionRecords(ids, change)
        }
    }

    /// The change of ``updateSessionRecords(_:_:)``, holding the windows' lock.
    private func changeSessionRecords(
        _ ids: Set<SceneID>, _ change: @Sendable (inout [SceneID: SessionRecord]) -> Void
    ) throws(SceneStoreError) {
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
    func removeClaim(_ id: SceneID) async {
        await onOwnThread { _ = unlink(claimPath(id)) }
    }

    /// The windows' lock, waited for at most ``lockTimeout`` without
    /// holding a thread: tried without waiting, then again after a pause
    /// slept on the registry's clock (50 µs, doubling up to 2 ms), so that
    /// window calls waiting for another process occupy none of the
    /// library's threads either. A cancelled task stops waiting.
    private func sessionLock() async throws(SceneStoreError) -> SceneLock {
        let start = clock.now
        var pause = Duration.microseconds(50)
        while true {
            do {
                return try SceneLock(path: sessionLockPath, scene: Self.sessionsLockName, timeout: nil, clock: clock)
            } catch .lockTimeout {
                guard clock.now - start < lockTimeout else { break }
            }
            do { try await clock.sleep(until: clock.now + pause) } catch { break }
            pause = min(pause * 2, .milliseconds(2))
        }
        // A last try, which names the holder when it fails too.
        do {
            return try SceneLock(path: sessionLockPath, scene: Self.sessionsLockName, timeout: .zero, clock: clock)
        } catch .lockTimeout(let scene, let holder, _) {
            throw .lockTimeout(scene: scene, holderPID: holder, waited: clock.now - start)
        }
    }

    private static let sessionsLockName: SceneID = "scenestore-sessions"

    /// The records of the index, read as a scene file is
    /// (``openToRead(_:)``): never through a symbolic link, never blocking
    /// on a FIFO, its size checked before a byte is read.
    /// - Throws: ``SceneStoreError/notARegularFile(path:found:)`` for a
    ///   symbolic link (not followed) or anything but a regular file;
    ///   ``SceneStoreError/io(syscall:path:errno:)`` with `EFBIG` for an
    ///   index over ``SessionIndex/maxBytes``. Each leaves it as it is.
    private func readSessionIndex() throws(SceneStoreError) -> [SceneID: SessionRecord] {
        let path = sessionIndexPath
        let file: Descriptor
        switch try openToRead(path) {
        case .opened(let opened): file = opened
        case .missing: return [:]
        case .symbolicLink: throw .notARegularFile(path: path, found: FileKind(mode: S_IFLNK).description)
        }
        let fd = file.raw
        var info = stat()
        try syscall("fstat", path: path) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .notARegularFile(path: path, found: FileKind(mode: info.st_mode).description)
        }
        guard info.st_size <= SessionIndex.maxBytes else { throw .io(syscall: "read", path: path, errno: .fileTooLarge) }
        return try SessionIndex.parse(readWhole(fd, size: Int(info.st_size), path: path), path: path)
    }

    /// Replaces the index atomically and durably (a new temp file, `fsync`,
    /// `rename` over the index: a symbolic link there is replaced, never
    /// written through). An index over ``SessionIndex/maxBytes`` is refused
    /// before anything is written (`EFBIG`): it could not be read back.
    private func writeSessionIndex(_ bytes: Data) throws(SceneStoreError) {
        guard bytes.count <= SessionIndex.maxBytes else {
            throw .io(syscall: "write", path: sessionIndexPath, errno: .fileTooLarge)
        }
        let temp = sessionIndexTempPath(token: randomToken())
        let file = try create(temp)
        do {
            try PositionalIO.write(bytes, to: file.raw, path: temp, system: system)
            try syscall("fsync", path: temp) { system.fsync(file.raw) }
            try syscall("rename", path: sessionIndexPath) { system.rename(temp, sessionIndexPath) }
        } catch {
            unlink(temp)
            throw error
        }
        try syncDirectory()
    }

    /// What the claim file of a window the index says is open tells.
    private enum ClaimState {
        /// A live process holds it.
        case held
        /// Nobody does: its holder died.
        case free
        /// Nobody does, and its holder recorded its quit on it
        /// (``FileClaim/markQuit()``): the index could not say so.
        case quit
    }

    /// Whether some open file description, in this process or another,
    /// holds the claim on scene `id`: one open and one `F_OFD_GETLK`.
    /// A window the index says is open whose claim file is missing or not
    /// marked is held still when a process holds a deleted claim file
    /// (a cleaner deleted it): one read of `/proc/locks`, only for windows
    /// whose process died or lost its claim file.
    private func claimState(_ id: SceneID) -> ClaimState {
        let path = claimPath(id)
        switch Descriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) {
        case .success(let file):
            var current = stat()
            // Not knowing counts as held: a window is never offered twice.
            guard (try? syscall("fcntl(F_OFD_GETLK)", path: path) { scenestore_ofd_is_locked(file.raw) }) == 0,
                  fstat(file.raw, &current) == 0, !hasDeletedHolder(path, current.st_ino)
            else { return .held }
            return current.st_size > 0 ? .quit : .free
        case .failure(.io(_, _, .noSuchFileOrDirectory)):
            return hasDeletedHolder(path, nil) ? .held : .free
        case .failure:
            return .held
        }
    }

    /// Empties the claim file `lock` holds of a quit recorded on it
    /// (``FileClaim/markQuit()``): the window is open again, and a crash
    /// from now on reads as one.
    private static func clearQuitMark(of lock: SceneLock) throws(SceneStoreError) {
        var held = stat()
        try syscall("fstat", path: lock.path) { fstat(lock.fd, &held) }
        guard held.st_size > 0 else { return }
        // The lock's descriptor is read-only: the file opened once more to write.
        let file = try Descriptor(lock.path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        var opened = stat()
        try syscall("fstat", path: lock.path) { fstat(file.raw, &opened) }
        guard opened.st_dev == held.st_dev, opened.st_ino == held.st_ino else { return }
        try syscall("ftruncate", path: lock.path) { ftruncate(file.raw, 0) }
        try syscall("fdatasync", path: lock.path) { fdatasync(file.raw) }
    }

    private func hasDeletedHolder(_ path: String, _ current: ino_t?) -> Bool {
        var directory = stat()
        guard stat(rootPath, &directory) == 0 else { return true }
        return SceneLock.holderOfDeletedVersion(of: path, device: UInt64(directory.st_dev), except: current.map(UInt64.init)) != nil
    }
}

/// A scene's claim: its ``SceneLock`` on the claim file, marked for probes,
/// held until ``release()``.
private final class FileClaim: SceneClaim, @unchecked Sendable {
    /// Guards `lock`, which only release and abandon touch.
    private let lock: Locked<SceneLock?>

    /// Where ``markQuit()`` writes: the root's queue.
    private let executor: QueueExecutor

    init(_ lock: SceneLock, executor: QueueExecutor) {
        self.lock = Locked(lock)
        self.executor = executor
    }

    func release() {
        abandon()
    }

    /// Writes `quit` into the claim file, through a descriptor of its own
    /// (the lock's is read-only), once it is sure to be the file held, and
    /// makes it durable.
    func markQuit() async -> Bool {
        await withTaskExecutorPreference(executor) {
            lock.withLock { held -> Bool in
                guard let held else { return false }
                var locked = stat()
                guard fstat(held.fd, &locked) == 0,
                      case .success(let file) = Descriptor.open(held.path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                else { return false }
                var opened = stat()
                let mark = Array("quit\n".utf8)
                return fstat(file.raw, &opened) == 0 && opened.st_dev == locked.st_dev && opened.st_ino == locked.st_ino
                    && pwrite(file.raw, mark, mark.count, 0) == mark.count && fdatasync(file.raw) == 0
            }
        }
    }

    func abandon() {
        guard let held = lock.withLock({ lock in defer { lock = nil }; return lock }) else { return }
        // The mark off before the close, so the claim is free when this
        // returns even while a child this process is spawning still shares
        // the descriptor (until its exec closes it); ``SceneLock/unlock()``
        // does the same for the flock.
        scenestore_ofd_unlock(held.fd)
        held.unlock()
    }

    deinit { abandon() }
}
