import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A save as a record appended to the scene file's log (format version 2,
/// see SceneFileLog.swift): the one write and `fdatasync` a commit needs,
/// where replacing the file takes a new file, its `fsync`, an exchange and
/// the directory's `fsync`.
extension SceneDirectory {
    /// Appends `record` to scene `id`'s log over its closing `]}`, then
    /// `fdatasync`s. Call with the scene lock held. Only when the file is a
    /// regular version 2 file whose header and last complete record name
    /// `version`, whose log ends right after that record (no torn tail), and
    /// whose size with the record stays within `sizeLimit`.
    ///
    /// The file is written in place, so a reader without the lock may see
    /// the append half-way: the record's checksum makes that a torn tail,
    /// read as the version before.
    ///
    /// - Returns: whether it appended; `false`: nothing was written.
    /// - Throws: when the write or the sync fails; the file is then cut back
    ///   to what it held (best effort: a failed sync leaves the record,
    ///   complete or torn, which readers take or drop as a whole).
    func append(_ record: [UInt8], to id: SceneID, over version: DiskVersion, sizeLimit: Int) throws(SceneStoreError) -> Bool {
        let path = scenePath(id)
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd != -1 else {
            if errno == ENOENT || errno == ELOOP { return false }
            throw .io(syscall: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        try syscall("fstat", path: path) { fstat(fd, &info) }
        let size = Int(info.st_size)
        guard info.st_mode & S_IFMT == S_IFREG, size + record.count + 2 <= sizeLimit,
              let end = try logEnd(of: fd, size: size, path: path, naming: version)
        else { return false }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(record.count + 1 + SceneFile.logEnd.count)
        if !end.first { bytes.append(UInt8(ascii: ",")) }
        bytes += record
        bytes += SceneFile.logEnd
        // Over the log's end but its leading newline, which ends the last line.
        let offset = end.offset + 1
        do {
            try writeAll(bytes, at: offset, to: fd, path: path)
            try syscall("fdatasync", path: path) { fdatasync(fd) }
        } catch {
            if ftruncate(fd, off_t(size)) == 0 {
                _ = pwriteAll(SceneFile.logEnd, at: end.offset, to: fd)
            }
            throw error
        }
        return true
    }

    /// Where the log of the file open as `fd` ends, when its header and
    /// last record name `version` and nothing follows the end but
    /// itself: the offset of the end (``SceneFile/logEnd``), and whether
    /// the log has no record yet. `nil` otherwise.
    private func logEnd(
        of fd: Int32, size: Int, path: String, naming version: DiskVersion
    ) throws(SceneStoreError) -> (offset: Int, first: Bool)? {
        let tailStart = max(0, size - Self.tailBytes)
        let tail = try read(fd, at: tailStart, count: size - tailStart, path: path)
        let head = tailStart == 0 ? tail : try read(fd, at: 0, count: Self.headerBytes, path: path)
        guard tail.count == size - tailStart,
              let peeked = SceneFile.peekHeader(head, tail: tail),
              DiskVersion(incarnation: peeked.incarnation, generation: peeked.generation) == version,
              let end = tail.withUnsafeBytes({ SceneFileTail.read($0.bindMemory(to: UInt8.self)) })
        else { return nil }
        return (tailStart + end.end, end.tail == .noRecords)
    }

    /// More than any header ``SceneFile/encoded(_:)`` writes.
    static let headerBytes = 1024
    /// How much of a file's end is read to find its last record: a record
    /// longer than this (a large value) makes the next save write the
    /// whole file instead.
    static let tailBytes = 64 << 10

    /// Up to `count` bytes from `offset` (fewer at the file's end).
    func read(_ fd: Int32, at offset: Int, count: Int, path: String) throws(SceneStoreError) -> Data {
        var data = Data(count: count)
        var filled = 0
        while filled < count {
            let got = data.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + filled }, count - filled, off_t(offset + filled))
            }
            if got == -1 {
                if errno == EINTR { continue }
                throw .io(syscall: "pread", path: path, errno: errno)
            }
            if got == 0 { break }
            filled += got
        }
        if filled < count { data.removeSubrange(filled...) }
        return data
    }

    private func writeAll(_ bytes: [UInt8], at offset: Int, to fd: Int32, path: String) throws(SceneStoreError) {
        if let failure = pwriteAll(bytes, at: offset, to: fd) {
            throw .io(syscall: "pwrite", path: path, errno: failure)
        }
    }

    /// - Returns: the `errno` of a failed write, or `nil`.
    private func pwriteAll(_ bytes: [UInt8], at offset: Int, to fd: Int32) -> Int32? {
        bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let count = pwrite(fd, raw.baseAddress.map { $0 + written }, raw.count - written, off_t(offset + written))
                if count == -1 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
    }
}
