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
        try self.init(at: path, type: "tmpfs", options: "size=\(size)")
    }

    /// Mounts a ramfs at `path`: no size limit, and timestamps of the
    /// kernel's coarse clock (a tick, 4 ms at HZ=250), as ext4's were
    /// before Linux 6.13; tmpfs has fine-grained ones now.
    public static func ramfs(at path: URL) throws -> TmpfsMount {
        try TmpfsMount(at: path, type: "ramfs", options: "")
    }

    private init(at path: URL, type: String, options: String) throws {
        self.path = path
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let mounted = options.withCString { Glibc.mount(type, path.path, type, 0, $0) }
        guard mounted == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Remounts it read-only or read-write; whether that succeeded.
    /// A read-only remount fails with EBUSY while any process holds a file
    /// of the mount open for writing, and a child that another test of
    /// this process is spawning holds a copy of every descriptor of ours
    /// until its exec: so EBUSY is tried again, every 10 ms for up to 10 s
    /// (a poll for that exec, not a pace; seen once in a loaded CI run).
    public func remount(readOnly: Bool) -> Bool {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        for _ in 0..<1000 {
            if Glibc.mount("tmpfs", path.path, "tmpfs", flags, nil) == 0 { return true }
            guard errno == EBUSY else { return false }
            usleep(10_000)
        }
        return false
    }

    /// Unmounts it, lazily (busy descriptors do not keep it).
    public func unmount() {
        _ = umount2(path.path, Int32(MNT_DETACH))
    }
}
