import SystemPackage

/// Every system call the file root makes: its reads, its saves, its
/// locks, its listings. ``LiveFileSystem`` makes them; a test's file
/// system may fail any of them (a full disk, an I/O error, the open-file
/// limit, a short write) or keep the files somewhere else altogether, and
/// the production storage runs unchanged over it. The file root keeps no
/// descriptor and names no path that did not come through here.
///
/// The calls are the kernel's, typed: a path or a descriptor in, a result
/// or an `Errno` out, `EINTR` retried. Short reads and writes are the
/// caller's to continue (``OpenFile`` does).
package protocol FileSystem: Sendable {
    /// Opens `path`, relative to `directory` when one is given.
    func open(_ path: String, _ mode: OpenMode, in directory: FileDescriptor?) throws(Errno) -> FileDescriptor
    func close(_ file: FileDescriptor)
    /// `pread`: how many bytes it read, fewer at the file's end.
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int
    /// `pwrite`: how many bytes it wrote, fewer on a full disk.
    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int
    /// `ftruncate`.
    func resize(_ file: FileDescriptor, to size: Int) throws(Errno)
    /// `fsync`: the file's bytes and metadata durable.
    func sync(_ file: FileDescriptor) throws(Errno)
    /// `fdatasync`: the file's bytes (and its size) durable.
    func syncData(_ file: FileDescriptor) throws(Errno)
    /// `fstat`, without the times (asking for them marks the file's change
    /// time as seen, so its next write dirties the inode for `fdatasync`).
    func status(_ file: FileDescriptor) throws(Errno) -> FileStatus
    /// `stat`, or `lstat` when `followingLinks` is false (`statx` without
    /// the times, as ``status(_:)``).
    func status(_ path: String, followingLinks: Bool) throws(Errno) -> FileStatus
    /// `mkdir` (0700), relative to `directory` when one is given.
    func makeDirectory(_ path: String, in directory: FileDescriptor?) throws(Errno)
    /// `renameat`, each name relative to its directory when one is given.
    func rename(_ from: String, in fromDirectory: FileDescriptor?, to: String, in toDirectory: FileDescriptor?) throws(Errno)
    /// `renameat2(RENAME_EXCHANGE)`: `EINVAL` where the file system cannot.
    func exchange(_ first: String, _ second: String) throws(Errno)
    /// `link`: a second name for the file at `existing`.
    func link(_ existing: String, as new: String) throws(Errno)
    func unlink(_ path: String) throws(Errno)
    /// Unlinks `path` soon, off the caller's path (the replaced version of
    /// a file: freeing its blocks costs ext4 about a millisecond with
    /// online discard); any failure is left to the next launch's cleaning.
    func unlinkLater(_ path: String)
    /// The names in the directory, `.` and `..` left out, nothing `stat`ed.
    func entries(ofDirectory path: String) throws(Errno) -> [String]
    /// Takes byte `byte` of the file with an open file description lock
    /// (`F_OFD_SETLK`, never waiting): exclusive, or shared. `false` when
    /// another description holds a conflicting one.
    func lock(_ file: FileDescriptor, byte: Int64, exclusive: Bool) throws(Errno) -> Bool
    func unlock(_ file: FileDescriptor, byte: Int64)
    /// Whether another open file description holds that byte in a way an
    /// exclusive lock would conflict with (`F_OFD_GETLK`).
    func isLocked(_ file: FileDescriptor, byte: Int64) throws(Errno) -> Bool
    /// What tells the root of other processes' changes to its names:
    /// inotify (``InotifyWatcher/shared``) for the kernel's file systems;
    /// `nil` where there is none (the root is re-read on a timer).
    var watcher: (any FileWatcher)? { get }
}

extension FileSystem {
    /// On ``SceneDirectory/cleanupQueue``.
    package func unlinkLater(_ path: String) {
        SceneDirectory.cleanupQueue.async { try? unlink(path) }
    }
}

/// How the file root opens a file: each never blocks on a FIFO and is
/// closed on exec.
package enum OpenMode: Sendable, Hashable {
    /// To read, never through a symbolic link, without updating the access
    /// time where the owner may ask (an updated access time is a dirty
    /// inode the writer's next `fdatasync` writes too).
    case read
    /// An existing file, to write, never through a symbolic link.
    case write
    /// A new file (0600) to write: `EEXIST` when the name is taken, never
    /// through a symbolic link.
    case createNew
    /// To write, created (0600) if missing, never through a symbolic link.
    case writeCreating
    /// To read and write, created (0600) if missing, never through a
    /// symbolic link (the root's lock file).
    case readWriteCreating
    /// A directory, to sync it or to name files in it; through a symbolic
    /// link only when `followingLink`.
    case directory(followingLink: Bool)
}

/// What `fstat` tells of a file, its times left out.
package struct FileStatus: Sendable, Equatable {
    package var kind: FileKind
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: UInt32
    package var size: Int
    package var identity: FileIdentity
}

/// A file's device and inode: which file a descriptor or a path names.
package struct FileIdentity: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
}

/// What stands at a path.
package enum FileKind: Sendable, Hashable, CustomStringConvertible {
    case regular, directory, fifo, socket, characterDevice, blockDevice, symbolicLink, unknown

    package var description: String {
        switch self {
        case .regular: "regular file"
        case .directory: "directory"
        case .fifo: "FIFO"
        case .socket: "socket"
        case .characterDevice: "character device"
        case .blockDevice: "block device"
        case .symbolicLink: "symbolic link"
        case .unknown: "file of unknown kind"
        }
    }
}

extension FileSystem {
    func open(_ path: String, _ mode: OpenMode) throws(Errno) -> FileDescriptor {
        try open(path, mode, in: nil)
    }

    func rename(_ from: String, to: String) throws(Errno) {
        try rename(from, in: nil, to: to, in: nil)
    }
}

/// Runs `call`, its failure thrown as ``SceneStoreError/io(syscall:path:errno:)``
/// naming `name` and `path`.
func io<Result>(_ name: String, _ path: String, _ call: () throws(Errno) -> Result) throws(SceneStoreError) -> Result {
    do {
        return try call()
    } catch {
        throw .io(syscall: name, path: path, errno: error)
    }
}

/// ``io(_:_:_:)`` for a call whose failure with one of `expected` is an
/// answer, not an error (`ENOENT` for an `unlink` of what may be gone):
/// `nil` then.
@discardableResult
func io<Result>(
    _ name: String, _ path: String, unless expected: Errno..., call: () throws(Errno) -> Result
) throws(SceneStoreError) -> Result? {
    do {
        return try call()
    } catch where expected.contains(error) {
        return nil
    } catch {
        throw .io(syscall: name, path: path, errno: error)
    }
}
