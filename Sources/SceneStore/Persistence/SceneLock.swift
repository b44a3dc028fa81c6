import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a scene's lock file, held until ``unlock()``.
///
/// The lock file is never renamed, and no other scene's clean-up can take
/// it for a leftover (see ``SceneDirectory``). After `flock` succeeds the
/// holder checks that the file it locked is still the one at the path (an
/// old SceneStore's discard unlinked it), and starts over if not. Closing
/// the descriptor (also by the kernel when a holder dies) releases the
/// lock, so a killed writer never wedges the scene; a *stopped* one
/// (SIGSTOP, a debugger) makes waiters give up after the timeout.
///
/// A lock file deleted while a writer holds it (a cleaner, `rm .*~*`)
/// must not let a second writer in. A missing lock file is created
/// already locked (`O_TMPFILE`, `flock`, then `linkat` into place), so
/// nobody can lock it before its creator has looked around, and opened
/// once more by its name, so that `/proc/<pid>/fd` shows it as `PATH
/// (deleted)` once it is deleted (an unnamed file shows as `DIR/#INODE`,
/// whatever its name). The creator then enters only if no process holds a
/// lock on a deleted file of the same path
/// (``holderOfDeletedVersion(of:fd:)``), waiting a few milliseconds for
/// one to let go. Otherwise it unlinks its file again, lets go and
/// retries after a random pause: whoever was inside under the deleted
/// file finishes first, and anyone who locked the creator's file
/// meanwhile finds it gone from the path and starts over. (Two creators
/// that each see the other give way both, never wait for each other.)
///
/// A window's claim (``SceneDirectory/claim(_:)``) is the same lock on its
/// claim file, taken without waiting and held for the window's life.
final class SceneLock {
    /// The locked descriptor.
    private(set) var fd: Int32
    /// The creator's descriptor opened by name, or -1: the one that shows
    /// in `/proc/<pid>/fd` as the path (``fd`` is the unnamed file's).
    private var named: Int32 = -1
    let path: String

    /// Waits until this process holds the scene's lock, at most `timeout`.
    ///
    /// Tries `flock(LOCK_EX | LOCK_NB)` and, while another process holds
    /// the lock, tries again after a pause that grows from 50 µs to 2 ms.
    /// The file is opened without blocking and must be a regular file: a
    /// FIFO, a device or a directory at the path is refused at once.
    /// - Throws: ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``
    ///   naming the holder's pid when `/proc/locks` tells it,
    ///   ``SceneStoreError/notARegularFile(path:found:)``, or an I/O error.
    /// - Parameter timeout: `nil`: never wait; while another process holds
    ///   the lock, throw ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``
    ///   at once, without looking for the holder.
    /// - Parameter clock: what the timeout is measured on (the registry's).
    init(path: String, scene: SceneID, timeout: Duration?, clock: SceneClock = .continuous) throws(SceneStoreError) {
        self.path = path
        var wait = LockWait(scene: scene, timeout: timeout, clock: clock)
        while true {
            let file: Descriptor
            let identity: FileIdentity
            var created = false
            var named: Descriptor? = nil
            switch try Self.open(path) {
            case .again:
                continue
            case .existing(let opened, let opening):
                try Self.lock(opened.raw, path: path, wait: &wait)
                file = opened
                identity = opening
            case .created(let opened, let opening, let byName, let locked):
                if !locked { try Self.lock(opened.raw, path: path, wait: &wait) }
                file = opened
                identity = opening
                created = true
                named = byName
            }
            // The file was unlinked while we waited: start over.
            guard Self.isAtPath(identity, path) else { continue }
            if created, let holder = Self.holderLeft(of: path, fd: file.raw, clock: clock) {
                // Someone may be inside under a deleted lock file (or is a
                // creator that lost the race or gave way, and has not let
                // go yet): give way, after a random pause so that creators
                // do not meet again.
                if Self.isAtPath(identity, path) { unlink(path) }
                _ = consume file
                _ = named.take()
                try wait.pause(jittered: true) { holder }
                continue
            }
            self.fd = file.release()
            if let byName = named.take() { self.named = byName.release() }
            return
        }
    }

    /// What opening the lock file found.
    private enum Opened: ~Copyable {
        /// The descriptor and the file's identity (an open file's inode
        /// never changes: the check after `flock` only looks at the path).
        case existing(Descriptor, FileIdentity)
        /// This call made the file; `named`, the file opened once more by
        /// its name, when it was `locked` before it appeared at the path.
        case created(Descriptor, FileIdentity, named: Descriptor?, locked: Bool)
        /// The file vanished or appeared in between: try again.
        case again
    }

    /// Opens the lock file without blocking (a FIFO would block `open`
    /// forever), creating it, locked, when it is missing.
    private static func open(_ path: String) throws(SceneStoreError) -> Opened {
        // Read-only: flock needs no write access, so a scene on a
        // read-only file system still loads (its saves fail with EROFS).
        switch Descriptor.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) {
        case .success(let file):
            var info = stat()
            try syscall("fstat", path: path) { fstat(file.raw, &info) }
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw .notARegularFile(path: path, found: FileKind(mode: info.st_mode).description)
            }
            return .existing(file, FileIdentity(info))
        case .failure(.io(_, _, .noSuchFileOrDirectory)): return try create(path)
        case .failure(.io(_, _, .tooManySymbolicLinkLevels)): throw .notARegularFile(path: path, found: FileKind(mode: S_IFLNK).description)
        case .failure(let error): throw error
        }
    }

    /// Creates the missing lock file: an unnamed file, locked, then linked
    /// at `path` (`EEXIST`: another process was first). Where the file
    /// system has no `O_TMPFILE`, an `O_EXCL` create, locked right after.
    private static func create(_ path: String) throws(SceneStoreError) -> Opened {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        switch Descriptor.open(directory.isEmpty ? "." : directory, openUnnamed | O_RDWR | O_CLOEXEC, mode: 0o600) {
        case .success(let unnamed): return try link(unnamed, at: path)
        case .failure(.io(_, _, let code)) where code == .notSupported || code == .isDirectory || code == .invalidArgument:
            return try createByName(path)
        case .failure(let error): throw error
        }
    }

    /// Locks the unnamed file and links it at `path`.
    private static func link(_ unnamed: consuming Descriptor, at path: String) throws(SceneStoreError) -> Opened {
        let fd = unnamed.raw
        try syscall("flock", path: path) { flock(fd, LOCK_EX | LOCK_NB) }
        let linked = try syscall("linkat", path: path, unless: .fileExists) {
            linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, path, AT_SYMLINK_FOLLOW)
        }
        guard linked != nil else { return .again }
        // By name too (a cleaner may have deleted or replaced it since).
        guard let named = try? Descriptor(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
              let identity = FileIdentity(of: fd), isAtPath(identity, path)
        else { return .again }
        return .created(unnamed, identity, named: named, locked: true)
    }

    /// The `O_EXCL` create where there is no `O_TMPFILE`.
    private static func createByName(_ path: String) throws(SceneStoreError) -> Opened {
        switch Descriptor.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_CREAT | O_EXCL, mode: 0o600) {
        case .success(let file):
            var info = stat()
            try syscall("fstat", path: path) { fstat(file.raw, &info) }
            return .created(file, FileIdentity(info), named: nil, locked: false)
        case .failure(.io(_, _, .fileExists)): return .again
        case .failure(let error): throw error
        }
    }

    /// Takes the `flock` on `fd`, waiting as `wait` says.
    private static func lock(_ fd: Int32, path: String, wait: inout LockWait) throws(SceneStoreError) {
        while try syscall("flock", path: path, unless: .wouldBlock, call: { flock(fd, LOCK_EX | LOCK_NB) }) == nil {
            try wait.pause { holderPID(of: fd) }
        }
    }

    /// A holder of a deleted version of the lock file that is still there
    /// after a short grace (5 ms on the registry's clock, holding the new
    /// lock meanwhile): a creator that lost the race to link its file lets
    /// go within microseconds, a writer inside finishes within a save.
    private static func holderLeft(of path: String, fd: Int32, clock: SceneClock) -> Int32? {
        let grace = clock.now + .milliseconds(5)
        var holder = holderOfDeletedVersion(of: path, fd: fd)
        while holder != nil, clock.now < grace {
            clock.blockingSleep(for: .microseconds(100))
            holder = holderOfDeletedVersion(of: path, fd: fd)
        }
        return holder
    }

    /// Whether `path` still names the file `identity` (held open by the caller).
    static func isAtPath(_ identity: FileIdentity, _ path: String) -> Bool {
        var current = stat()
        return path.withCString { lstat($0, &current) } == 0 && FileIdentity(current) == identity
    }

    /// Lets go of the lock and closes its descriptors.
    func unlock() {
        guard fd >= 0 else { return }
        // Unlocked before the close: a child this process is spawning may
        // share the descriptor until its exec, and would hold the lock.
        flock(fd, LOCK_UN)
        close(fd)
        if named >= 0 { close(named) }
        (fd, named) = (-1, -1)
    }

    deinit { unlock() }

    /// The pid holding a `flock` on the file open as `fd`, from
    /// `/proc/locks` (`N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF`).
    private static func holderPID(of fd: Int32) -> Int32? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return flockHolders().first { $0.device == info.st_dev && $0.inode == info.st_ino }?.pid
    }

    /// A process holding a `flock` on a deleted file that was at `path`
    /// (`fd` is open on the file there now), or `nil`.
    static func holderOfDeletedVersion(of path: String, fd: Int32) -> Int32? {
        var mine = stat()
        guard fstat(fd, &mine) == 0 else { return nil }
        return holderOfDeletedVersion(of: path, device: UInt64(mine.st_dev), except: UInt64(mine.st_ino))
    }

    /// A process holding a `flock` on a deleted file that was at `path`, on
    /// `device`, other than inode `except`, or `nil`. Its `/proc/<pid>/fd`
    /// shows the very file it locked as `PATH (deleted)`, the inode
    /// `/proc/locks` names (a creator keeps its file open by name for this;
    /// see the type's comment). A process that only has a deleted version
    /// open, unlocked, while it locks another file is no holder.
    /// Only processes whose `/proc/<pid>/fd` this one may read are seen:
    /// those of the same user, which is who writes a scene root.
    static func holderOfDeletedVersion(of path: String, device: UInt64, except: UInt64?) -> Int32? {
        guard let slash = path.lastIndex(of: "/"), let directory = realpath(String(path[..<slash]), nil) else { return nil }
        let deleted = String(cString: directory) + path[slash...] + " (deleted)"
        free(directory)
        // Two reads of the table, each holder looked at once: a read skips
        // an entry when another lock goes away between its pages, and two
        // rarely skip the same one.
        let locked = Dictionary(grouping: Set(flockHolders()).union(flockHolders())) { $0.pid }
        for (pid, holders) in locked {
            let inodes = Set(holders.filter { $0.device == device && $0.inode != except }.map(\.inode))
            guard !inodes.isEmpty else { continue }
            let fds = "/proc/\(pid)/fd"
            guard let entries = try? directoryEntries(fds) else { continue }
            let holds = entries.contains { entry in
                var info = stat()
                return (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + entry)) == deleted && stat(fds + "/" + entry, &info) == 0
                    && UInt64(info.st_dev) == device && inodes.contains(UInt64(info.st_ino))
            }
            if holds { return pid }
        }
        return nil
    }

    /// An exclusive `flock` as `/proc/locks` lists it.
    struct FlockHolder: Hashable {
        var pid: Int32
        var device: UInt64
        var inode: UInt64
    }

    /// Every exclusive `flock` in `/proc/locks`: holder, device and inode.
    static func flockHolders() -> [FlockHolder] {
        // Read to its end: a `/proc` file says it is empty, and a read sized
        // by that gets its first page only.
        guard let bytes = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/locks")).readToEnd() else { return [] }
        let table = String(decoding: bytes, as: UTF8.self)
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", let pid = Int32(fields[4]) else { return nil }
            let node = fields[5].split(separator: ":")
            guard node.count == 3, let major = UInt64(node[0], radix: 16), let minor = UInt64(node[1], radix: 16),
                  let inode = UInt64(node[2]) else { return nil }
            // The kernel's dev_t from its major and minor (glibc's makedev).
            let device = ((major & 0xfff) << 8) | ((major & ~0xfff) << 32) | (minor & 0xff) | ((minor & ~0xff) << 12)
            return FlockHolder(pid: pid, device: device, inode: inode)
        }
    }
}

/// How long a lock may still be waited for, and the pause before the next
/// try: both on the registry's clock (a test advances a manual one).
private struct LockWait {
    let scene: SceneID
    /// `nil`: no waiting at all.
    let timeout: Duration?
    let clock: SceneClock
    /// When the first try failed: an uncontended lock reads no clock.
    var start: Duration?
    var pause = 50

    init(scene: SceneID, timeout: Duration?, clock: SceneClock) {
        self.scene = scene
        self.timeout = timeout
        self.clock = clock
    }

    /// Pauses before the next try (50 µs, doubling up to 2 ms), or throws
    /// ``SceneStoreError/lockTimeout(scene:holderPID:waited:)`` naming
    /// `holder()` once the timeout has passed.
    /// `jittered`: a random pause between one and two times the current
    /// one, so that processes that met do not meet again in step.
    mutating func pause(jittered: Bool = false, holder: () -> Int32?) throws(SceneStoreError) {
        guard let timeout else { throw .lockTimeout(scene: scene.rawValue, holderPID: nil, waited: .zero) }
        let now = clock.now
        let start = self.start ?? now
        self.start = start
        guard now - start < timeout else {
            throw .lockTimeout(scene: scene.rawValue, holderPID: holder(), waited: timeout)
        }
        clock.blockingSleep(for: .microseconds(jittered ? Int.random(in: pause...(2 * pause)) : pause))
        pause = min(pause * 2, 2000)
    }
}

/// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift does not
/// import: an unnamed file in the directory, to `linkat` into place.
private let openUnnamed: Int32 = 0o20000000 | O_DIRECTORY
