import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a scene's lock file, held until ``unlock()``.
///
/// The lock file is never renamed; a discard unlinks it while holding the
/// lock, so after `flock` returns the holder checks that the file it locked
/// is still the one at the path, and starts over if not. Closing the
/// descriptor (also by the kernel when a holder dies) releases the lock, so
/// a killed writer never wedges the scene.
final class SceneLock {
    private var fd: Int32
    let path: String

    /// Blocks until this process holds the scene's lock.
    init(path: String) throws(SceneStoreError) {
        self.path = path
        while true {
            let fd = try syscall("open", path: path) {
                open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            }
            do {
                try syscall("flock", path: path) { flock(fd, LOCK_EX) }
            } catch {
                close(fd)
                throw error
            }
            var held = stat()
            var current = stat()
            if fstat(fd, &held) == 0, lstat(path, &current) == 0,
               held.st_ino == current.st_ino, held.st_dev == current.st_dev {
                self.fd = fd
                return
            }
            close(fd)  // the file was unlinked (a discard) while we waited
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
}
