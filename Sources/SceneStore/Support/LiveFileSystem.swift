internal import CSceneSupport
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's calls, as ``FileSystem`` names them: swift-system's
/// `FileDescriptor` where it has the call, Glibc (and CSceneSupport for
/// what Swift cannot import: `renameat2`, `statx`, OFD locks) where it
/// does not. Each path is passed by `withCString`: the implicit conversion
/// would copy it (one allocation, two when its length fills the copy's
/// capacity, so a commit's count would depend on the root's path).
package struct LiveFileSystem: FileSystem {
    package var watcher: (any FileWatcher)? {
        #if os(Linux)
        InotifyWatcher.shared
        #else
        nil
        #endif
    }

    package init() {}

    package func open(_ path: String, _ mode: OpenMode, in directory: FileDescriptor?) throws(Errno) -> FileDescriptor {
        let at = directory?.rawValue ?? AT_FDCWD
        let common = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        let raw = try retrying {
            path.withCString { path in
                switch mode {
                case .read: scenestore_open_to_read(at, path)
                case .write: openat(at, path, O_WRONLY | common)
                case .createNew: openat(at, path, O_WRONLY | O_CREAT | O_EXCL | common, 0o600)
                case .writeCreating: openat(at, path, O_WRONLY | O_CREAT | common, 0o600)
                case .readWriteCreating: openat(at, path, O_RDWR | O_CREAT | common, 0o600)
                case .directory(let follow):
                    openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW))
                }
            }
        }
        return FileDescriptor(rawValue: raw)
    }

    package func close(_ file: FileDescriptor) {
        try? file.close()
    }

    package func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try typed { try file.read(fromAbsoluteOffset: Int64(offset), into: buffer) }
    }

    package func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try typed { try file.write(toAbsoluteOffset: Int64(offset), bytes) }
    }

    package func resize(_ file: FileDescriptor, to size: Int) throws(Errno) {
        try typed { try file.resize(to: Int64(size)) }
    }

    package func sync(_ file: FileDescriptor) throws(Errno) {
        try retrying { fsync(file.rawValue) }
    }

    package func syncData(_ file: FileDescriptor) throws(Errno) {
        try retrying { fdatasync(file.rawValue) }
    }

    package func status(_ file: FileDescriptor) throws(Errno) -> FileStatus {
        var info = stat()
        try retrying { scenestore_fstat_untimed(file.rawValue, &info) }
        return FileStatus(info)
    }

    package func status(_ path: String, followingLinks: Bool) throws(Errno) -> FileStatus {
        var info = stat()
        try retrying { path.withCString { scenestore_stat_untimed($0, followingLinks ? 1 : 0, &info) } }
        return FileStatus(info)
    }

    package func makeDirectory(_ path: String, in directory: FileDescriptor?) throws(Errno) {
        try retrying { path.withCString { mkdirat(directory?.rawValue ?? AT_FDCWD, $0, 0o700) } }
    }

    package func rename(
        _ from: String, in fromDirectory: FileDescriptor?, to: String, in toDirectory: FileDescriptor?
    ) throws(Errno) {
        try retrying {
            from.withCString { from in
                to.withCString { renameat(fromDirectory?.rawValue ?? AT_FDCWD, from, toDirectory?.rawValue ?? AT_FDCWD, $0) }
            }
        }
    }

    package func exchange(_ first: String, _ second: String) throws(Errno) {
        try retrying { first.withCString { first in second.withCString { scenestore_exchange(first, $0) } } }
    }

    package func link(_ existing: String, as new: String) throws(Errno) {
        try retrying { existing.withCString { existing in new.withCString { Glibc.link(existing, $0) } } }
    }

    package func unlink(_ path: String) throws(Errno) {
        try retrying { path.withCString { Glibc.unlink($0) } }
    }

    package func entries(ofDirectory path: String) throws(Errno) -> [String] {
        guard let directory = path.withCString({ opendir($0) }) else { throw Errno(rawValue: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    package func lock(_ file: FileDescriptor, byte: Int64, exclusive: Bool) throws(Errno) -> Bool {
        do {
            try retrying { scenestore_ofd_lock_byte(file.rawValue, byte, exclusive ? 1 : 0) }
            return true
        } catch .resourceTemporarilyUnavailable {
            return false
        }
    }

    package func unlock(_ file: FileDescriptor, byte: Int64) {
        _ = scenestore_ofd_unlock_byte(file.rawValue, byte)
    }

    package func isLocked(_ file: FileDescriptor, byte: Int64) throws(Errno) -> Bool {
        try retrying { scenestore_ofd_byte_is_locked(file.rawValue, byte) } == 1
    }
}

/// `call` until it returns anything but -1 with `EINTR`: its result, or
/// `errno` thrown.
@discardableResult
private func retrying(_ call: () -> Int32) throws(Errno) -> Int32 {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = Errno(rawValue: errno)
        if code != .interrupted { throw code }
    }
}

/// swift-system's call, whose untyped throw is always an `Errno`.
private func typed<Result>(_ call: () throws -> Result) throws(Errno) -> Result {
    do {
        return try call()
    } catch let error as Errno {
        throw error
    } catch {
        throw .ioError
    }
}

extension FileStatus {
    init(_ info: stat) {
        let kind: FileKind = switch info.st_mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFLNK: .symbolicLink
        default: .unknown
        }
        self.init(
            kind: kind, permissions: UInt32(info.st_mode & 0o7777), size: Int(info.st_size),
            identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
    }
}
