import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

/// The physical floor of a durable commit on this disk: one 4 KiB block
/// written in place over a file that already holds it, then `fdatasync`
/// (no rename, no directory sync, no size change, so no metadata to
/// flush). A commit that appends one record to a per-scene log and syncs
/// it can come near this; one that replaces the scene's file cannot.
/// Measured by `bench compare` beside the other alternatives.
struct BlockFloorAlternative: CommitAlternative {
    let name = "floor (1 block)"
    let durable = true
    static let blockSize = 4096
    private var block = [UInt8](repeating: UInt8(ascii: " "), count: blockSize)
    private var fd: Int32 = -1
    private(set) var writes = 0

    mutating func prepare(keys: Int, in directory: URL) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        fd = open(directory.appendingPathComponent("block").path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw failure("block floor: open failed: errno \(errno)") }
        // The block exists and is on disk before the first timed commit.
        try writeBlock()
        guard fsync(fd) == 0 else { throw failure("block floor: fsync failed: errno \(errno)") }
        writes = 0
    }

    mutating func commit(_ index: Int) async throws {
        let stamp = Array("value \(index)\n".utf8)
        block.replaceSubrange(0..<stamp.count, with: stamp)
        try writeBlock()
    }

    /// The block with the value's first bytes (only `bench compare`'s
    /// commits measure this floor).
    mutating func push(_ value: Data, forKey key: String) async throws {
        let head = value.prefix(Self.blockSize)
        block.replaceSubrange(0..<head.count, with: head)
        try writeBlock()
    }

    private mutating func writeBlock() throws {
        let written = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == Self.blockSize, fdatasync(fd) == 0 else { throw failure("block floor: write failed: errno \(errno)") }
        writes += 1
    }

    mutating func finish() async throws { close(fd) }
}

/// The floor of a commit to a log: the bytes SceneStore appends for the
/// change (the record of one value set) written where SceneStore writes
/// them, then `fdatasync`: over the padding after the log's end when they
/// fit there (the file's size unchanged), else
/// growing the file, padded to the next 4 KiB (``LogAppend``, the store's
/// own rule). Nothing encoded, no lock, no read of the file's end, never
/// written whole again.
///
/// `growing`: the same record written at the file's end, no padding: every
/// append grows the file, so its `fdatasync` also writes the new size. Next to the
/// padded one, what the padding buys.
struct AppendFloorAlternative: CommitAlternative {
    let growing: Bool
    var name: String { growing ? "floor (append, growing)" : "floor (append)" }
    let durable = true
    private var fd: Int32 = -1
    private var size = 0
    /// Where the log ends (padded only).
    private var end = 0
    /// The generation of the next record (warm-up commits have negative indices).
    private var generation: UInt64 = 2
    private(set) var writes = 0

    init(growing: Bool = false) { self.growing = growing }

    mutating func prepare(keys: Int, in directory: URL) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        fd = open(directory.appendingPathComponent("log").path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw failure("append floor: open failed: errno \(errno)") }
        var values: [String: String] = [:]
        for key in 0..<keys { values["key\(key)"] = "value number \(key)" }
        let document = try JSONEncoder().encode(values)
        let written = document.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == document.count, fsync(fd) == 0 else { throw failure("append floor: write failed: errno \(errno)") }
        (size, end) = (document.count, document.count)
        writes = 0
    }

    mutating func commit(_ index: Int) async throws {
        defer { generation += 1 }
        let record = SceneFileRecord(
            generation: generation, writer: WriterIdentity(pid: getpid(), token: "0123456789abcdef"),
            set: [("key0", .string("value \(index)"))], removed: [])
        try append(record.frame())
    }

    /// The value's bytes as a record (only `bench compare`'s commits measure this floor).
    mutating func push(_ value: Data, forKey key: String) async throws {
        try append(Array(value))
    }

    private mutating func append(_ record: [UInt8]) throws {
        let bytes: [UInt8], offset: Int
        if growing {
            (bytes, offset) = (record, size)
            size += bytes.count
        } else {
            let append = LogAppend(record: record, end: end, size: size)
            (bytes, offset) = (append.bytes, append.offset)
            (size, end) = (append.size, append.offset + append.recordCount)
        }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count, fdatasync(fd) == 0 else { throw failure("append floor: write failed: errno \(errno)") }
        writes += 1
    }

    mutating func finish() async throws { close(fd) }
}
