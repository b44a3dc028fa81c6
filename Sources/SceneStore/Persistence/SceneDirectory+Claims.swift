import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The file root's window lifecycle: the records in one index file
/// (``SessionIndex``), written atomically under the windows' lock; a claim
/// is the window's byte of the root's lock file (``RootLock``), taken
/// without waiting and held for the window's life. Whether a claim is held
/// is asked with `F_OFD_GETLK`, never by taking it (a launch that probed by
/// taking could make another launch's claim fail).
///
/// Every call runs on the root's own queue (``onOwnThread(_:)``), never on
/// the caller's thread; the windows' lock is waited for on the clock,
/// holding no thread (``sessionLock()``). A quit that cannot change the
/// index writes `quit` into the window's `.<id>~claim` file
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
        guard let held = try lockIfFree(.claim(id)) else { return nil }
        do {
            try clearQuitMark(id)
        } catch {
            held.unlock()
            throw error
        }
        return FileClaim(held, directory: self, id: id)
    }

    func sessionRecords() async throws(SceneStoreError) -> [(record: SessionRecord, held: Bool)] {
        let records = try await onOwnThread { () throws(SceneStoreError) in try readSessionIndex() }
        // Only a window the index says is open can be held for more than
        // a moment: one that quit let go of its claim after the index said
        // so, and a reopen claims before it says so again (a launch that
        // lists it meanwhile finds the claim taken when it reopens; the
        // claim decides, the list only offers). A probe costs an
        // `F_OFD_GETLK` and an `lstat` of the quit mark.
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

    /// Removes the quit mark of a scene closed for good (the caller holds
    /// the claim or nobody does).
    func removeClaim(_ id: SceneID) async {
        await onOwnThread { _ = unlink(claimPath(id)) }
    }

    /// The windows' lock, waited for at most ``lockTimeout`` without
    /// holding a thread: tried without waiting, then again after a pause
    /// slept on the registry's clock (50 µs, doubling up to 2 ms), so that
    /// window calls waiting for another process occupy none of the
    /// library's threads either. A cancelled task stops waiting.
    private func sessionLock() async throws(SceneStoreError) -> RootLock.Held {
        let start = clock.now
        var pause = Duration.microseconds(50)
        while true {
            if let held = try lockIfFree(.windows) { return held }
            guard clock.now - start < lockTimeout else { break }
            do { try await clock.sleep(until: clock.now + pause) } catch { break }
            pause = min(pause * 2, .milliseconds(2))
        }
        // A last try, which names the holder when it fails too.
        do {
            return try lock(.windows, timeout: .zero)
        } catch .lockTimeout(let scene, let holder, _) {
            throw .lockTimeout(scene: scene, holderPID: holder, waited: clock.now - start)
        }
    }


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
    /// holds the claim on scene `id` (one `F_OFD_GETLK`), and if not,
    /// whether its holder marked its quit.
    private func claimState(_ id: SceneID) -> ClaimState {
        // Not knowing counts as held: a window is never offered twice.
        guard locks.isHeld(.claim(id)) == false else { return .held }
        var info = stat()
        let path = claimPath(id)
        let marked = path.withCString { lstat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size > 0
        return marked ? .quit : .free
    }

    /// Empties the window's quit mark (``FileClaim/markQuit()``): it is
    /// open again, and a crash from now on reads as one.
    private func clearQuitMark(_ id: SceneID) throws(SceneStoreError) {
        let path = claimPath(id)
        switch Descriptor.open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) {
        case .success(let file):
            var info = stat()
            try syscall("fstat", path: path) { fstat(file.raw, &info) }
            guard info.st_size > 0 else { return }
            try syscall("ftruncate", path: path) { ftruncate(file.raw, 0) }
            try syscall("fdatasync", path: path) { fdatasync(file.raw) }
        case .failure(.io(_, _, .noSuchFileOrDirectory)): return
        case .failure(let error): throw error
        }
    }
}

/// A scene's claim: its byte of the root's lock file, held until
/// ``release()``.
private final class FileClaim: SceneClaim, Sendable {
    private let held: Locked<RootLock.Held?>
    private let directory: SceneDirectory
    private let id: SceneID

    init(_ held: RootLock.Held, directory: SceneDirectory, id: SceneID) {
        self.held = Locked(held)
        self.directory = directory
        self.id = id
    }

    func release() {
        abandon()
    }

    /// Writes `quit` into the window's `.<id>~claim` file (never through a
    /// symbolic link) and makes it durable, on the root's queue.
    func markQuit() async -> Bool {
        await directory.onOwnThread {
            guard held.withLock({ $0 != nil }) else { return false }
            let path = directory.claimPath(id)
            guard case .success(let file) = Descriptor.open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode: 0o600)
            else { return false }
            let mark = Array("quit\n".utf8)
            return pwrite(file.raw, mark, mark.count, 0) == mark.count && fdatasync(file.raw) == 0
                && (try? directory.syncDirectory()) != nil
        }
    }

    func abandon() {
        held.withLock { held in
            held?.unlock()
            held = nil
        }
    }

    deinit { abandon() }
}
