import Foundation

/// The scene file as a log, format version 2: the version 1 document (the
/// values as of one generation), then a `log` array holding one record
/// per later save, one per line, each with its own checksum:
///
/// ```json
/// {
///   "format": "scenestore.scene",
///   "version": 2,
///   ...
///   "values": {
///     "selectedTab": {"type": "int", "value": 2}
///   },
///   "log": [
/// {"generation": 8, "writer": {"pid": 4242, "token": "9b1d07c3e5a2f468"}, "set": {"selectedTab": {"type": "int", "value": 3}}, "checksum": "fnv1a64:0c5e..."}
/// ,{"generation": 9, "writer": {"pid": 4242, "token": "9b1d07c3e5a2f468"}, "remove": ["selectedTab"], "checksum": "fnv1a64:77a1..."}
/// ]}
/// ```
///
/// A save over the stored version writes its record over the closing
/// `]}` and `fdatasync`s: the bytes it changed, not the scene. The file is
/// one JSON object at every commit, so a person, `jq`, and a SceneStore
/// that knows only version 1 (it refuses a newer version, leaving the file
/// as it is) read it as such.
///
/// A record's checksum covers its bytes from its `{` up to its
/// `"checksum"` field. A record that does not parse or match its checksum
/// ends the log: it and what follows are a torn tail (an append cut short
/// by a power loss, or one a reader sees half-way), dropped, never
/// half-applied. The next save writes the whole file again.
extension SceneFile {
    /// How a storage keeps a scene's document.
    package enum Layout: Sendable {
        /// Format version 1: the document alone, replaced whole by each save.
        case document
        /// Format version 2: the document and the records of later saves.
        case log

        var formatVersion: Int {
            switch self {
            case .document: 1
            case .log: 2
            }
        }
    }

    /// A file may grow to this many times its whole encoding (plus
    /// ``compactionSlack``) before a save writes it whole again.
    package static let compactionFactor = 2
    /// What a file may grow by beyond ``compactionFactor``, so that a small
    /// scene is not written whole every few saves.
    package static let compactionSlack = 16 << 10
    /// How a log ends: written after every record.
    static let logEnd: [UInt8] = Array("\n]}\n".utf8)
    /// The log's end up to its last newline (`"\n]}"`): where a log ends,
    /// its offset is the one a ``LogPosition`` keeps.
    static let logClosing = logEnd.dropLast()
    /// The line that opens the log, the last line of a log without records.
    static let logStart: [UInt8] = Array("  \"log\": [".utf8)
}

/// Where a reading of a version 2 file's log ended: the file's first
/// bytes (its header, which every whole write changes: a new generation),
/// where its last record ends, and the version it held there. The next
/// reading may read only what follows (``SceneStorage/read(_:after:)``).
package struct LogPosition: Sendable, Equatable {
    /// How many of the file's first bytes ``headHash`` covers, and their
    /// FNV-1a hash: what tells that the file was not written whole since
    /// (a new header), in a word instead of the bytes themselves, which an
    /// open store would keep.
    package var headCount: Int
    package var headHash: UInt64
    package var offset: Int
    /// The log had no record.
    package var first: Bool
    package var version: DiskVersion

    /// How much of the file's start ``head`` holds: the header's lines up
    /// to the values (the generation among them), whatever the scene id.
    static let headBytes = 512

    /// The head stops at the log's end (`offset`) in a small scene, whose
    /// first 512 bytes reach into the log: the bytes from there on are
    /// what its appends write, and a head that took them in would no
    /// longer match after the store's own next record.
    init(_ document: Data, offset: Int, first: Bool, version: DiskVersion) {
        headCount = min(document.count, Self.headBytes, offset)
        headHash = document.prefix(headCount).withUnsafeBytes { Self.hash($0) }
        self.offset = offset
        self.first = first
        self.version = version
    }

    /// Where the log of `document`, a file this store wrote whole as
    /// `version`, ends; `nil` when it is not a log.
    package init?(written document: Data, version: DiskVersion) {
        guard let end = document.withUnsafeBytes({ SceneFileTail.read($0.bindMemory(to: UInt8.self)) }) else { return nil }
        self.init(document, offset: end.end, first: end.tail == .noRecords, version: version)
    }

    /// Where the log ends once a record of `generation`, `count` bytes
    /// (the line, without a separator), is appended here: after the log's
    /// last newline, a comma first unless it is the first record, the
    /// log's end after it (``LogAppend``).
    package func appending(_ count: Int, generation: UInt64) -> LogPosition {
        var next = self
        next.offset += 1 + (first ? 0 : 1) + count
        next.first = false
        next.version.generation = generation
        return next
    }

    /// Where the log ends after `records`, read from here, the last of them
    /// ending `end` bytes after this position.
    package func advanced(over records: [SceneFileRecord], to end: Int) -> LogPosition {
        guard let last = records.last else { return self }
        var next = self
        next.offset += end
        next.first = false
        next.version.generation = last.generation
        return next
    }

    /// Whether `head`, the file's first ``headCount`` bytes now, are the
    /// ones read then.
    package func isHead(_ head: UnsafeRawBufferPointer) -> Bool {
        head.count == headCount && Self.hash(head) == headHash
    }

    /// Whether `head`, the document's first ``headCount`` bytes now, are
    /// the ones read then.
    package func isHead(_ head: Data) -> Bool {
        head.withUnsafeBytes { isHead($0) }
    }

    /// What an append of a record's `line` writes after the newline that
    /// ends the log's last line (at ``offset`` + 1): its separator, the
    /// line and the log's end, with no padding after it (``LogAppend``
    /// pads a file).
    package func appended(_ line: [UInt8]) -> [UInt8] {
        (first ? [] : [UInt8(ascii: ",")]) + line + SceneFile.logEnd
    }

    /// FNV-1a's step over 8-byte words (the bytes left over one at a
    /// time): a hash kept in memory only, compared within one process.
    /// Each step is a bijection of the state for a given word, so a head
    /// that differs in one word from the one read never hashes the same.
    private static func hash(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var offset = 0
        while offset + 8 <= raw.count {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
            offset += 8
        }
        while offset < raw.count {
            hash = (hash ^ UInt64(raw[offset])) &* prime
            offset += 1
        }
        return hash
    }
}

/// One save, as a record of a version 2 file's log.
package struct SceneFileRecord: Equatable {
    package var generation: UInt64
    package var writer: WriterIdentity
    /// In the file's order.
    package var set: [(String, SceneValue)]
    package var removed: [String]

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.generation == rhs.generation && lhs.writer == rhs.writer && lhs.removed == rhs.removed
            && lhs.set.map(\.0) == rhs.set.map(\.0) && lhs.set.map(\.1) == rhs.set.map(\.1)
    }

    /// The record's line, without the separator or newline around it.
    func line() -> [UInt8] {
        var out = JSONText(capacity: 128 + set.reduce(0) { $0 + $1.0.utf8.count + 40 })
        out.raw("{\"generation\": ")
        out.number(generation)
        out.raw(", \"writer\": ")
        out.writer(writer)
        if !set.isEmpty {
            out.raw(", \"set\": {")
            for (index, (key, value)) in set.enumerated() {
                if index > 0 { out.raw(", ") }
                out.member(key, value)
            }
            out.raw("}")
        }
        if !removed.isEmpty {
            out.raw(", \"remove\": [")
            for (index, key) in removed.enumerated() {
                if index > 0 { out.raw(", ") }
                out.string(key)
            }
            out.raw("]")
        }
        out.raw(", ")
        var checksum = Checksum()
        out.bytes.withUnsafeBytes { checksum.add(bytes: $0) }
        out.raw("\"checksum\": \"")
        checksum.appendText(to: &out.bytes)
        out.raw("\"}")
        return out.bytes
    }

    /// The checksum of a record whose bytes up to its `"checksum"` field are `covered`.
    static func checksum(_ covered: UnsafeBufferPointer<UInt8>) -> String {
        var checksum = Checksum()
        checksum.add(bytes: UnsafeRawBufferPointer(covered))
        return checksum.text
    }
}

/// What the end of a version 2 file says, read without parsing the file.
package enum SceneFileTail: Equatable {
    /// The log has no records: the header's version is the file's.
    case noRecords
    /// The last record, complete, with a matching checksum.
    case record(generation: UInt64, writerToken: String)

    /// Reads the last line of `bytes`, the end of a version 2 file: `nil`
    /// unless it ends with the log's end after a complete record (or the
    /// log's opening line) written as ``SceneFileRecord/line()`` writes it,
    /// and then nothing but whitespace (``LogAppend``'s padding).
    /// - Returns: the tail, and the offset in `bytes` where the log's end starts.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> (tail: SceneFileTail, end: Int)? {
        let trimmed = Self.trimmingPadding(bytes)
        let closing = SceneFile.logClosing
        guard trimmed > closing.count,
              UnsafeBufferPointer(rebasing: bytes[(trimmed - closing.count)..<trimmed]).elementsEqual(closing)
        else { return nil }
        let lineEnd = trimmed - closing.count
        var lineStart = lineEnd
        while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        guard lineStart > 0 else { return nil }  // the line may go on before the bytes given
        let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
        if line.elementsEqual(SceneFile.logStart) { return (.noRecords, lineEnd) }
        var reader = FixedLayoutReader(bytes: line)
        _ = reader.expect(",")
        let recordStart = reader.index
        guard reader.expect("{\"generation\": "), let generation = reader.number(),
              reader.expect(", \"writer\": {\"pid\": "), reader.signedNumber(),
              reader.expect(", \"token\": \""), let token = reader.plainString(), reader.expect("}, ")
        else { return nil }
        // The checksum field closes the line: `"checksum": "fnv1a64:<16 hex>"}`.
        let quoted = Self.quotedChecksum
        let field = Self.checksumField
        let fieldStart = line.count - field.count - 16 - 2
        guard fieldStart >= reader.index,
              UnsafeBufferPointer(rebasing: line[fieldStart..<(fieldStart + field.count)]).elementsEqual(field),
              line[line.count - 2] == UInt8(ascii: "\""), line[line.count - 1] == UInt8(ascii: "}")
        else { return nil }
        let stored = String(decoding: UnsafeBufferPointer(rebasing: line[(fieldStart + quoted.count)..<(line.count - 2)]), as: UTF8.self)
        guard SceneFileRecord.checksum(UnsafeBufferPointer(rebasing: line[recordStart..<fieldStart])) == stored else {
            return nil
        }
        return (.record(generation: generation, writerToken: token), lineEnd)
    }

    /// How many of `bytes` come before the whitespace that ends them: the
    /// padding after a log, spaces, passed eight at a time.
    private static func trimmingPadding(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = bytes.count
        guard let base = bytes.baseAddress else { return 0 }
        while count > 0 {
            if count >= 8, UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 {
                count -= 8
            } else if JSONText.isWhitespace(bytes[count - 1]) {
                count -= 1
            } else {
                break
            }
        }
        return count
    }

    private static let quotedChecksum = Array("\"checksum\": \"".utf8)
    private static let checksumField = quotedChecksum + Array(Checksum.prefix.utf8)
}

/// Where and what a save appends to a log whose end (`\n]}\n`) starts at
/// `end`, in a file of `size` bytes: its record (after a comma unless it is
/// the log's first) written over the old `]}`, the log's end after it.
///
/// Bytes past the log's end are padding, whitespace up to the end of a
/// 4 KiB block: a record that fits there is written in place, the file's
/// size unchanged, so its `fdatasync` writes the data alone (no inode, no
/// journal); one that does not fit grows the file, padded again to the
/// next block's end. Padding is JSON whitespace after the document: every
/// reader skips it (a version 2 reader before it too, which then read the
/// file whole instead of its tail).
package struct LogAppend {
    /// Where the bytes go: right after the newline that ends the last line.
    package let offset: Int
    package let bytes: [UInt8]
    /// How many of `bytes` the record and its separator take: written up
    /// to there, the record is whole.
    package let recordCount: Int
    /// The file's size after the append.
    package let size: Int
    /// Whether the file keeps its size: the bytes overwrite padding.
    package let inPlace: Bool

    /// Padding grows a file to a multiple of this.
    package static let block = 4096

    package init(record: [UInt8], first: Bool, end: Int, size: Int) {
        offset = end + 1
        recordCount = (first ? 0 : 1) + record.count
        let logEnd = offset + recordCount + SceneFile.logEnd.count
        inPlace = logEnd <= size
        // A block's worth of room for the next records, the last byte a newline.
        self.size = inPlace ? size : (logEnd + Self.block - 1) / Self.block * Self.block
        // One allocation of the final length: grown piece by piece, the
        // count of reallocations depended on where the log ends.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(inPlace ? logEnd - offset : self.size - offset)
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes += record
        bytes += SceneFile.logEnd
        if !inPlace, self.size > logEnd {
            bytes += repeatElement(UInt8(ascii: " "), count: self.size - logEnd - 1)
            bytes.append(UInt8(ascii: "\n"))
        }
        self.bytes = bytes
    }
}
