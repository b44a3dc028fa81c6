#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Reads and writes at an offset of an open file: short counts and
/// `EINTR` continued (``syscall(_:path:_:)``), failures thrown as
/// ``SceneStoreError/io(syscall:path:errno:)``. A new file is written at
/// offset 0, an existing one read from wherever its caller looks: no call
/// depends on a descriptor's own position.
enum PositionalIO {
    /// Fills `buffer` from `offset` of the file open as `fd`.
    /// - Returns: how many bytes it read: fewer at the file's end.
    static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String
    ) throws(SceneStoreError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try syscall("pread", path: path) {
                pread(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled, off_t(offset + filled))
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Up to `count` bytes from `offset` (fewer at the file's end), read
    /// straight into the result.
    static func read(_ fd: Int32, at offset: Int, count: Int, path: String) throws(SceneStoreError) -> Data {
        var data = Data(count: count)
        // (withUnsafeMutableBytes rethrows untyped: the error comes back as a Result.)
        let filled = try data.withUnsafeMutableBytes { buffer in
            Result { () throws(SceneStoreError) in try read(fd, into: buffer, at: offset, path: path) }
        }.get()
        if filled < count { data.removeSubrange(filled...) }
        return data
    }

    /// Writes all of `bytes` at `offset` through `system`; `written`
    /// counts the bytes that made it, also when a write fails (a full
    /// disk) and this throws.
    static func write(
        _ bytes: UnsafeRawBufferPointer, at offset: Int, to fd: Int32, path: String, written: inout Int,
        system: FileSystem
    ) throws(SceneStoreError) {
        written = 0
        while written < bytes.count {
            let done = written
            written += try syscall("pwrite", path: path) {
                system.pwrite(fd, UnsafeRawBufferPointer(rebasing: bytes[done...]), offset + done)
            }
        }
    }

    /// Writes all of `bytes` at `offset` through `system`.
    static func write(
        _ bytes: some ContiguousBytes, at offset: Int = 0, to fd: Int32, path: String, system: FileSystem
    ) throws(SceneStoreError) {
        var written = 0
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SceneStoreError) in
                try write(raw, at: offset, to: fd, path: path, written: &written, system: system)
            }
        }.get()
    }
}
