internal import CSceneSupport
#if canImport(Glibc)
import Glibc
#endif

/// The system calls of the file root's saves, where a failure decides
/// what is durable: creating a file, writing at an offset, `fsync`,
/// `fdatasync`, the exchange and the `rename` that put a version in place.
/// ``live`` makes them; the unit tests' `FileSystem.faulty(_:)` makes the
/// ones a test chose fail (a full disk, an I/O error, the open-file limit,
/// a short write), so that those paths run as unit tests, without root or
/// a small disk.
/// Each returns what the C call returns and sets `errno` as it does.
package struct FileSystem: Sendable {
    var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    var pwrite: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int
    var fsync: @Sendable (_ fd: Int32) -> Int32
    var fdatasync: @Sendable (_ fd: Int32) -> Int32
    /// `renameat2(RENAME_EXCHANGE)`.
    var exchange: @Sendable (_ from: String, _ to: String) -> Int32
    var rename: @Sendable (_ from: String, _ to: String) -> Int32

    /// The C calls, each path passed by `withCString`: the implicit
    /// conversion would copy it (one allocation, two when its length fills
    /// the copy's capacity, so a commit's count depended on the root's path).
    package static let live = FileSystem(
        open: { path, flags, mode in path.withCString { Glibc.open($0, flags, mode) } },
        pwrite: { fd, bytes, offset in Glibc.pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset)) },
        fsync: { Glibc.fsync($0) },
        fdatasync: { Glibc.fdatasync($0) },
        exchange: { from, to in from.withCString { from in to.withCString { scenestore_exchange(from, $0) } } },
        rename: { from, to in from.withCString { from in to.withCString { Glibc.rename(from, $0) } } })
}
