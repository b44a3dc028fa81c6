#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor, closed when its owner lets go of it: no error
/// path or early return leaves one open, and none is closed twice.
struct Descriptor: ~Copyable {
    let raw: Int32

    /// Takes over `raw`, an open descriptor.
    init(adopting raw: Int32) {
        self.raw = raw
    }

    /// Opens `path` (`open(2)`, `EINTR` retried).
    /// - Throws: ``SceneStoreError/io(syscall:path:errno:)``.
    init(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SceneStoreError) {
        // `withCString`, not the implicit conversion: that copies the path
        // (one allocation, two when its length fills the copy's capacity).
        raw = try syscall("open", path: path) { path.withCString { Glibc.open($0, flags, mode) } }
    }

    /// Opens `name` in the directory open as `directory` (`openat(2)`);
    /// `path` names it in an error.
    init(_ name: String, in directory: borrowing Descriptor, path: String, _ flags: Int32) throws(SceneStoreError) {
        let fd = directory.raw
        raw = try syscall("open", path: path) { name.withCString { openat(fd, $0, flags) } }
    }

    /// Opens `path` as ``init(_:_:mode:)`` does, the failure returned for
    /// the caller to tell `ENOENT` or `ELOOP` from other errors.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) -> Result<Descriptor, SceneStoreError> {
        do {
            return .success(try Descriptor(path, flags, mode: mode))
        } catch {
            return .failure(error)
        }
    }

    /// Hands the descriptor to a caller that closes it itself.
    consuming func release() -> Int32 {
        let raw = raw
        discard self
        return raw
    }

    deinit {
        close(raw)
    }
}
