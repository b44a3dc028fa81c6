import Foundation
import SystemPackage

/// A file the file root opened through its ``FileSystem``, closed when
/// its owner lets go of it: no error path or early return leaves one
/// open, and none is closed twice. Its calls continue short reads and
/// writes and throw ``SceneStoreError/io(syscall:path:errno:)`` naming
/// its path. No call depends on the descriptor's own position.
struct OpenFile: ~Copyable {
    let descriptor: FileDescriptor
    let path: String
    let system: any FileSystem

    /// Opens `path` (`name` relative to `directory`, when given; `path`
    /// then only names it in errors).
    init(
        _ path: String, _ mode: OpenMode, name: String? = nil, in directory: FileDescriptor? = nil,
        system: any FileSystem
    ) throws(SceneStoreError) {
        descriptor = try io("open", path) { () throws(Errno) in try system.open(name ?? path, mode, in: directory) }
        self.path = path
        self.system = system
    }

    /// Opens `path` as ``init(_:_:name:in:system:)`` does, the failure
    /// returned for the caller to tell `ENOENT` or `ELOOP` from others.
    static func open(_ path: String, _ mode: OpenMode, system: any FileSystem) -> Result<OpenFile, Errno> {
        do {
            return .success(OpenFile(adopting: try system.open(path, mode), path: path, system: system))
        } catch {
            return .failure(error)
        }
    }

    private init(adopting descriptor: FileDescriptor, path: String, system: any FileSystem) {
        self.descriptor = descriptor
        self.path = path
        self.system = system
    }

    deinit {
        system.close(descriptor)
    }

    /// Fills `buffer` from `offset`: how many bytes it read, fewer at the
    /// file's end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SceneStoreError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try io("pread", path) { () throws(Errno) in
                try system.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: offset + filled)
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Up to `count` bytes from `offset` (fewer at the file's end), read
    /// straight into the result.
    func read(at offset: Int, count: Int) throws(SceneStoreError) -> Data {
        var data = Data(count: count)
        // (withUnsafeMutableBytes rethrows untyped: the error comes back as a Result.)
        let filled = try data.withUnsafeMutableBytes { buffer in
            Result { () throws(SceneStoreError) in try read(into: buffer, at: offset) }
        }.get()
        if filled < count { data.removeSubrange(filled...) }
        return data
    }

    /// Writes all of `bytes` at `offset`; `written` counts the bytes that
    /// made it, also when a write fails (a full disk) and this throws.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int, written: inout Int) throws(SceneStoreError) {
        written = 0
        while written < bytes.count {
            let done = written
            let count = try io("pwrite", path) { () throws(Errno) in
                try system.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + done)
            }
            // A write that makes no progress is a full disk that said so late.
            if count == 0 { throw .io(syscall: "pwrite", path: path, errno: .noSpace) }
            written += count
        }
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: some ContiguousBytes, at offset: Int = 0) throws(SceneStoreError) {
        var written = 0
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SceneStoreError) in try write(raw, at: offset, written: &written) }
        }.get()
    }

    func status() throws(SceneStoreError) -> FileStatus {
        try io("statx", path) { () throws(Errno) in try system.status(descriptor) }
    }

    func sync() throws(SceneStoreError) {
        try io("fsync", path) { () throws(Errno) in try system.sync(descriptor) }
    }

    func syncData() throws(SceneStoreError) {
        try io("fdatasync", path) { () throws(Errno) in try system.syncData(descriptor) }
    }

    func resize(to size: Int) throws(SceneStoreError) {
        try io("ftruncate", path) { () throws(Errno) in try system.resize(descriptor, to: size) }
    }
}
