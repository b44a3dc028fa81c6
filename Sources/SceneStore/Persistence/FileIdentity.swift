#if canImport(Glibc)
import Glibc
#endif

/// A file's device and inode: which file a descriptor or a path names.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of the file open as `fd`; `nil` (errno set) when `fstat` fails.
    init?(of fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        self.init(info)
    }
}

/// What stands at a path, by its `st_mode`, for error messages.
struct FileKind: CustomStringConvertible {
    let mode: mode_t

    var description: String {
        switch mode & S_IFMT {
        case S_IFREG: "regular file"
        case S_IFDIR: "directory"
        case S_IFIFO: "FIFO"
        case S_IFSOCK: "socket"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFLNK: "symbolic link"
        default: "file of unknown kind"
        }
    }
}
