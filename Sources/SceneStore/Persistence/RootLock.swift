import Foundation
import SystemPackage

/// Every lock of a scene root: one byte each of the root's one lock file,
/// `.scenestore.lock`, held with an open file description lock
/// (`F_OFD_SETLK`, which the kernel drops when the holder's process dies).
/// The file is created once, never written, never renamed and never
/// deleted, so no holder can ever find it replaced under its lock.
///
/// A registry opens the file once and keeps the descriptor: a lock costs
/// one `fcntl` and one `statx` and its release one `fcntl`, and no `open`
/// or `close` wakes the root's watchers. The kernel excludes other open
/// file descriptions (other processes, other registries of this process);
/// ``held`` excludes the callers that share this one.
///
/// Deleting the file by hand while processes run is misuse, as deleting
/// SQLite's hot journal is: a process that opens it afresh locks another
/// file than the holders. A registry whose file is no longer the one at the
/// path (the root moved away, or deleted and made again) notices it at its
/// next lock, by the path's device and inode, and locks the one there.
///
/// ```text
///  byte 0 ..< 2^61        a scene's lock      (FNV-1a of its id)
///  byte 2^61 ..< 2^62     a window's claim    (the same hash)
///  byte 2^62 + 1          "a registry has the root open" (shared)
/// ```
///
/// Two ids whose 61-bit hashes meet only wait for each other: for 10^6
/// scenes the chance that any two meet is about 2 x 10^-7.
package final class RootLock: Sendable {
    package static let fileName = ".scenestore.lock"

    /// What a byte of the file stands for.
    package enum Range: Hashable, Sendable {
        case scene(SceneID)
        case claim(SceneID)
        case open

        /// What a lock timeout names.
        var name: String {
            switch self {
            case .scene(let id), .claim(let id): id.rawValue
            case .open: "scenestore-root"
            }
        }

        package var offset: Int64 {
            switch self {
            case .scene(let id): Int64(bitPattern: Self.hash(id) & Self.mask)
            case .claim(let id): Int64(bitPattern: (Self.hash(id) & Self.mask) | (Self.mask + 1))
            case .open: (1 << 62) + 1
            }
        }

        private static let mask: UInt64 = (1 << 61) - 1

        /// FNV-1a, 64 bits: the same in every process (`Hasher` is seeded
        /// per process).
        private static func hash(_ id: SceneID) -> UInt64 {
            id.rawValue.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
    }

    let path: String
    let system: any FileSystem
    private let state = Locked(State())

    fileprivate struct State {
        /// The open lock file, `nil` until the first lock, and its identity.
        /// (Descriptors are kept as numbers: swift-system's are not `Sendable`.)
        var fd: CInt?
        var identity: FileIdentity?
        /// The bytes this registry holds, and the descriptor of each.
        var held: [Int64: CInt] = [:]
        /// Descriptors of a deleted lock file, closed with their last byte.
        var retired: Set<CInt> = []
        /// Whether `fd` is open for writing. A read-only one (a read-only
        /// file system, another user's root) takes shared locks only: they
        /// still exclude every writer, and its holder cannot write either.
        var writable = true
    }

    init(root: String, system: any FileSystem) {
        path = root + "/" + Self.fileName
        self.system = system
    }

    /// A byte this registry holds, until ``unlock()``.
    struct Held: Sendable {
        let lock: RootLock
        let range: Range

        func unlock() { lock.unlock(range) }
    }

    /// Takes `range` if nobody holds it now: `false` when another holder
    /// does, in this registry or elsewhere.
    /// - Throws: ``SceneStoreError/notARegularFile(path:found:)`` for
    ///   anything but a regular file at the path (never followed), or an
    ///   I/O error (`ENOENT`: a root without the file that cannot make it).
    func tryLock(_ range: Range, exclusive: Bool = true) throws(SceneStoreError) -> Bool {
        let offset = range.offset
        let (path, system) = (path, system)
        return try state.withLock { state throws(SceneStoreError) -> Bool in
            guard state.held[offset] == nil else { return false }
            while true {
                let fd = FileDescriptor(rawValue: try state.descriptor(path, system: system))
                let exclusive = exclusive && state.writable
                guard try io("fcntl(F_OFD_SETLK)", path, { () throws(Errno) in
                    try system.lock(fd, byte: offset, exclusive: exclusive)
                }) else { return false }
                // Still the file at the path? Not once the root was moved
                // away, or deleted and made again: then the one there now.
                if let found = try? system.status(path, followingLinks: false), found.identity == state.identity {
                    state.held[offset] = fd.rawValue
                    return true
                }
                system.unlock(fd, byte: offset)
                state.retire(system: system)
            }
        }
    }

    /// Waits until this registry holds `range`, at most `timeout`, trying
    /// again after a pause that grows from 50 µs to 2 ms.
    /// - Throws: ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``
    ///   naming the holder when `/proc` tells it.
    func lock(_ range: Range, timeout: Duration, clock: SceneClock) throws(SceneStoreError) {
        var start: Duration?
        var pause = 50
        while try !tryLock(range) {
            let now = clock.now
            if start == nil { start = now }
            guard let start, now - start < timeout else {
                throw .lockTimeout(scene: range.name, holderPID: holder(of: range), waited: timeout)
            }
            clock.blockingSleep(for: .microseconds(pause))
            pause = min(pause * 2, 2000)
        }
    }

    /// Lets go of `range` (before any close: a child this process is
    /// spawning shares the descriptor until its exec).
    func unlock(_ range: Range) {
        let offset = range.offset
        state.withLock { state in
            guard let fd = state.held.removeValue(forKey: offset) else { return }
            system.unlock(FileDescriptor(rawValue: fd), byte: offset)
            if state.retired.contains(fd), !state.held.values.contains(fd) {
                state.retired.remove(fd)
                system.close(FileDescriptor(rawValue: fd))
            }
        }
    }

    /// Whether anyone holds `range`, this registry included, without
    /// taking it; `nil` when the file cannot tell.
    func isHeld(_ range: Range) -> Bool? {
        let offset = range.offset
        return state.withLock { state -> Bool? in
            if state.held[offset] != nil { return true }
            guard let fd = try? state.descriptor(path, system: system) else { return nil }
            return try? system.isLocked(FileDescriptor(rawValue: fd), byte: offset)
        }
    }

    /// Whether this registry holds `range`'s byte shared and no other
    /// open file description holds it: no other registry has the root open.
    var isAlone: Bool {
        state.withLock { state in
            guard let fd = state.held[Range.open.offset] else { return false }
            return (try? system.isLocked(FileDescriptor(rawValue: fd), byte: Range.open.offset)) == false
        }
    }

    /// Lets go of everything (the registry closed).
    func close() {
        state.withLock { state in
            for (offset, fd) in state.held { system.unlock(FileDescriptor(rawValue: fd), byte: offset) }
            for fd in Set(state.held.values).union(state.retired).union(state.fd.map { [$0] } ?? []) {
                system.close(FileDescriptor(rawValue: fd))
            }
            state = State()
        }
    }

    deinit { close() }

    /// A process holding `range`, from the `lock:` lines of
    /// `/proc/<pid>/fdinfo/<fd>` (`1: OFDLCK ADVISORY WRITE -1 MAJ:MIN:INODE
    /// START END`): an OFD lock names no pid in `/proc/locks` or to
    /// `F_OFD_GETLK`. Read only after a timeout; only the processes of this
    /// user are seen, who are the ones that write its root.
    private func holder(of range: Range) -> Int32? {
        guard let identity = (try? system.status(path, followingLinks: true))?.identity else { return nil }
        let device = identity.device
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let hex = { (value: UInt64) in value < 16 ? "0" + String(value, radix: 16) : String(value, radix: 16) }
        let line = " \(hex(major)):\(hex(minor)):\(identity.inode) \(range.offset) \(range.offset)"
        for pid in (try? system.entries(ofDirectory: "/proc")) ?? [] {
            guard let number = Int32(pid), let fds = try? system.entries(ofDirectory: "/proc/\(pid)/fdinfo") else { continue }
            for fd in fds {
                guard let file = try? OpenFile("/proc/\(pid)/fdinfo/\(fd)", .read, system: system),
                      let bytes = try? file.read(at: 0, count: 4096)
                else { continue }
                if String(decoding: bytes, as: UTF8.self).split(separator: "\n").contains(where: { $0.hasPrefix("lock:") && $0.hasSuffix(line) }) {
                    return number
                }
            }
        }
        return nil
    }
}

extension RootLock.State {
    /// The open lock file, opened (and created, 0600) at the first call:
    /// read-write, which an exclusive lock needs, or read-only where the
    /// file system or the file's owner allows no more; never through a
    /// symbolic link; never blocking (a FIFO at the path).
    mutating func descriptor(_ path: String, system: any FileSystem) throws(SceneStoreError) -> CInt {
        if let fd { return fd }
        let opened: (FileDescriptor, FileStatus)
        do {
            opened = try Self.open(path, .readWriteCreating, system: system)
        } catch .io(_, _, let errno) where errno == .readOnlyFileSystem || errno == .permissionDenied {
            opened = try Self.open(path, .read, system: system)
            writable = false
        }
        (fd, identity) = (opened.0.rawValue, opened.1.identity)
        return opened.0.rawValue
    }

    private static func open(
        _ path: String, _ mode: OpenMode, system: any FileSystem
    ) throws(SceneStoreError) -> (FileDescriptor, FileStatus) {
        let fd: FileDescriptor
        do {
            fd = try system.open(path, mode)
        } catch .tooManySymbolicLinkLevels {
            throw .notARegularFile(path: path, found: FileKind.symbolicLink.description)
        } catch .isDirectory {
            throw .notARegularFile(path: path, found: FileKind.directory.description)
        } catch {
            throw .io(syscall: "open", path: path, errno: error)
        }
        let info: FileStatus
        do {
            info = try system.status(fd)
        } catch {
            system.close(fd)
            throw .io(syscall: "fstat", path: path, errno: error)
        }
        guard info.kind == .regular else {
            system.close(fd)
            throw .notARegularFile(path: path, found: info.kind.description)
        }
        return (fd, info)
    }

    /// Keeps the current descriptor for the bytes still held on it, closed
    /// with the last of them; the next lock opens the path again.
    mutating func retire(system: any FileSystem) {
        if let fd {
            if held.values.contains(fd) { retired.insert(fd) } else { system.close(FileDescriptor(rawValue: fd)) }
        }
        fd = nil
        writable = true
    }
}
