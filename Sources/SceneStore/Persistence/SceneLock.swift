import Foundation
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
final class SceneLock {
    private var fd: Int32
    let path: String

    /// Waits until this process holds the scene's lock, at most `timeout`.
    ///
    /// Tries `flock(LOCK_EX | LOCK_NB)` and, while another process holds
    /// the lock, tries again after a pause that grows from 50 µs to 2 ms.
    /// - Throws: ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``
    ///   naming the holder's pid when `/proc/locks` tells it, or an I/O error.
    init(path: String, scene: SceneID, timeout: Duration) throws(SceneStoreError) {
        self.path = path
        let clock = ContinuousClock()
        let start = clock.now
        var pause = 50
        while true {
            // Read-only: flock needs no write access, so a scene on a
            // read-only file system still loads (its saves fail with EROFS).
            let fd = try syscall("open", path: path) {
                open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            }
            var locked = false
            while !locked {
                if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                    locked = true
                } else if errno == EINTR {
                    continue
                } else if errno != EWOULDBLOCK {
                    let code = errno
                    close(fd)
                    throw .io(syscall: "flock", path: path, errno: code)
                } else if clock.now - start >= timeout {
                    let holder = Self.holderPID(of: fd)
                    close(fd)
                    throw .lockTimeout(scene: scene.rawValue, holderPID: holder, waited: timeout)
                } else {
                    usleep(UInt32(pause))
                    pause = min(pause * 2, 2000)
                }
            }
            var held = stat()
            var current = stat()
            if fstat(fd, &held) == 0, lstat(path, &current) == 0,
               held.st_ino == current.st_ino, held.st_dev == current.st_dev {
                self.fd = fd
                return
            }
            close(fd)  // the file was unlinked while we waited
        }
    }

    /// Unlinks the lock file; the lock stays held until ``unlock()``.
    func removeFile() {
        unlink(path)
    }

    func unlock() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { unlock() }

    /// The pid holding a `flock` on the file open as `fd`, from
    /// `/proc/locks` (`N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF`).
    private static func holderPID(of fd: Int32) -> Int32? {
        var info = stat()
        guard fstat(fd, &info) == 0,
              let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let wanted = String(major, radix: 16) + ":" + String(minor, radix: 16) + ":" + String(info.st_ino)
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE" else { continue }
            let node = fields[5].split(separator: ":")
            guard node.count == 3, let nodeMajor = UInt64(node[0], radix: 16), let nodeMinor = UInt64(node[1], radix: 16),
                  "\(String(nodeMajor, radix: 16)):\(String(nodeMinor, radix: 16)):\(node[2])" == wanted else { continue }
            return Int32(fields[4])
        }
        return nil
    }
}
