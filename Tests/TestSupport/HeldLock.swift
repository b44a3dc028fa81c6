import Foundation
import SceneStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A lock of a scene root held as another process's registry holds it: its
/// byte of `.scenestore.lock` on an open file description of its own. The
/// kernel makes every registry wait for it, in this process too, and drops
/// it at ``release()`` or when the process dies.
package final class HeldLock: Sendable {
    private let descriptor: Mutex<Int32>
    private let offset: Int64

    /// Takes `range` of the root's lock file (made, 0600, if missing),
    /// waiting while another holder has it.
    package init(_ range: RootLock.Range, root: URL) throws {
        let fd = open(root.appendingPathComponent(RootLock.fileName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var lock = flock(l_type: Int16(F_WRLCK), l_whence: Int16(SEEK_SET), l_start: __off_t(range.offset), l_len: 1, l_pid: 0)
        guard fcntl(fd, Self.setLockWaiting, &lock) == 0 else {
            let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            close(fd)
            throw failure
        }
        descriptor = Mutex(fd)
        offset = range.offset
    }

    /// Scene `scene`'s lock.
    package convenience init(scene: String, root: URL) throws {
        try self.init(.scene(SceneID(scene)), root: root)
    }

    /// Whether any open file description holds `range` (`F_OFD_GETLK`;
    /// `false` where the file is missing).
    package static func isHeld(_ range: RootLock.Range, root: URL) -> Bool {
        let fd = open(root.appendingPathComponent(RootLock.fileName).path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var lock = flock(l_type: Int16(F_WRLCK), l_whence: Int16(SEEK_SET), l_start: __off_t(range.offset), l_len: 1, l_pid: 0)
        return fcntl(fd, getLock, &lock) == 0 && lock.l_type != Int16(F_UNLCK)
    }

    /// Lets go (unlocked before the close: a child another test is spawning
    /// shares the descriptor until its exec).
    package func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            var lock = flock(l_type: Int16(F_UNLCK), l_whence: Int16(SEEK_SET), l_start: __off_t(offset), l_len: 1, l_pid: 0)
            _ = fcntl(fd, Self.setLock, &lock)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }

    /// `F_OFD_GETLK`, `F_OFD_SETLK` and `F_OFD_SETLKW` (Glibc's module
    /// leaves them out: they need `_GNU_SOURCE`).
    private static let getLock: Int32 = 36
    private static let setLock: Int32 = 37
    private static let setLockWaiting: Int32 = 38
}
