#if canImport(Glibc)
import Glibc
#endif

/// Descriptors of a root's files kept open between saves, one per path,
/// with the identity of the file each was opened on. A save that finds
/// one checks that the path still names that file instead of opening and
/// closing the file: for the lock file, with the `lstat` it makes after
/// `flock` anyway; for the scene file, with an `lstat` of its path in
/// place of the `fstat` of a new descriptor. Of the sixteen system calls
/// a commit made, that spares the lock file's `open`, `fstat` and `close`
/// and the scene file's `open` and `close` (two of them path walks). An
/// open file's inode is never reused, so the identity check cannot be
/// fooled.
///
/// A descriptor is taken out while it is used (``take(_:)``) and given
/// back after (``keep(_:identity:for:)``): two saves of one scene in this
/// process never share one; the second opens the file anew.
///
/// * Lock files (``SceneDirectory/lockDescriptors``): kept unlocked, so a
///   kept descriptor of a lock file that was deleted (a cleaner) holds
///   nobody back: ``SceneLock/holderOfDeletedVersion(of:fd:)`` matches a
///   holder by the inode it locked, not by the deleted files it has open.
///   The next save finds the path names another file and opens that one.
/// * Scene files (``SceneDirectory/sceneDescriptors``), opened to read:
///   the append reads the log's end and syncs through it. A kept
///   descriptor of a version another process replaced keeps that version's
///   blocks until this process's next save of the scene, or the registry's
///   close; this process's own whole writes let go of theirs first.
///
/// At most ``limit`` descriptors each; a registry's close closes them
/// all, and so does the end of the last reference. A save that finds the
/// process out of descriptors closes them and tries again
/// (``SceneDirectory/freeingKeptDescriptors(_:)``).
final class KeptDescriptors: Sendable {
    /// Enough for the scenes an app saves in turn; beyond it a save opens its files.
    static let limit = 64

    private struct Entry: Sendable {
        let fd: Int32
        let identity: FileIdentity
    }

    private let entries = Locked<[String: Entry]>([:])

    /// The kept descriptor of the file at `path` when it was kept, and
    /// that file's identity, taken out (the caller gives it back or
    /// closes it).
    func take(_ path: String) -> (fd: Int32, identity: FileIdentity)? {
        entries.withLock { $0.removeValue(forKey: path) }.map { ($0.fd, $0.identity) }
    }

    /// Keeps `fd`, open on the file `identity`, for the next save that
    /// uses `path`; closes it when there are ``limit`` already, or one
    /// for `path`.
    func keep(_ fd: Int32, identity: FileIdentity, for path: String) {
        let kept = entries.withLock { entries -> Bool in
            guard entries[path] == nil, entries.count < Self.limit else { return false }
            entries[path] = Entry(fd: fd, identity: identity)
            return true
        }
        if !kept { close(fd) }
    }

    /// Closes the descriptor kept for `path`, if any.
    func forget(_ path: String) {
        if let (fd, _) = take(path) { close(fd) }
    }

    /// Closes every kept descriptor.
    /// - Returns: how many it closed.
    @discardableResult
    func closeAll() -> Int {
        let all = entries.withLock { entries in
            defer { entries.removeAll() }
            return Array(entries.values)
        }
        for entry in all { close(entry.fd) }
        return all.count
    }

    deinit { closeAll() }
}

extension SceneDirectory {
    /// `open`, tried again once after closing every descriptor kept
    /// between saves when the process has none left (`EMFILE`, `ENFILE`):
    /// what this root keeps open never makes a save or a reading fail for
    /// want of one. Every `open` of a save and of a scene's reading goes
    /// through it.
    func freeingKeptDescriptors<Result>(_ open: () throws(SceneStoreError) -> Result) throws(SceneStoreError) -> Result {
        do {
            return try open()
        } catch .io(let call, let path, let code) where code == EMFILE || code == ENFILE {
            guard lockDescriptors.closeAll() + sceneDescriptors.closeAll() > 0 else {
                throw .io(syscall: call, path: path, errno: code)
            }
            return try open()
        }
    }
}
