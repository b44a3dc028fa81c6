import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted for one test (mounting needs root, which CI has):
/// a real full disk, or a file system to remount read-only. Made with
/// `mount(2)` and `umount2(2)`, no child process.
public struct TmpfsMount: Sendable {
    public let path: URL

    /// Mounts a tmpfs of `size` (as mount's `size=` option takes it) at `path`.
    public init(at path: URL, size: String) throws {
        self.path = path
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let mounted = "size=\(size)".withCString { Glibc.mount("tmpfs", path.path, "tmpfs", 0, $0) }
        guard mounted == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Remounts it read-only or read-write; whether that succeeded.
    public func remount(readOnly: Bool) -> Bool {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        return Glibc.mount("tmpfs", path.path, "tmpfs", flags, nil) == 0
    }

    /// Unmounts it, lazily (busy descriptors do not keep it).
    public func unmount() {
        _ = umount2(path.path, Int32(MNT_DETACH))
    }
}
