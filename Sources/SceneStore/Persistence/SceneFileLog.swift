import Foundation

/// The scene file as a log (format 3, see ``SceneFile``): a save over the
/// stored version appends its record, a frame holding the edited keys,
/// after the log's last record and `fdatasync`s: the bytes it changed,
/// not the scene.
///
/// A record's checksum covers its length and payload. One that is cut
/// short or does not match its checksum ends the log: it and what follows
/// are a torn tail (an append cut short by a power loss, or one a reader
/// sees half-way), dropped, never half-applied. The next save writes the
/// whole file again.
extension SceneFile {
    /// A file may grow to this many times its whole encoding (plus
    /// ``compactionSlack``) before a save writes it whole again.
    package static let compactionFactor = 2
    /// What a file may grow by beyond ``compactionFactor``, so that a small
    /// scene is not written whole every few saves.
    package static let compactionSlack = 16 << 10
}

/// Where a reading of a scene file's log ended: the file's first bytes
/// (its header and snapshot, which every whole write changes: a new
/// generation), where its last record ends, and the version it held
/// there. The next reading may read only what follows
/// (``SceneStorage/read(_:after:)``).
package struct LogPosition: Sendable, Equatable {
    /// How many of the file's first bytes ``headHash`` covers, and their
    /// ``Checksum``: what tells that the file was not written whole since
    /// (a new snapshot), in a word instead of the bytes themselves, which
    /// an open store would keep.
    package var headCount: Int
    package var headHash: UInt64
    /// Where the next record goes: right after the last one.
    package var offset: Int
    package var version: DiskVersion

    /// How much of the file's start the head holds: the header and the
    /// snapshot's first fields (its generation among them), whatever the
    /// scene id.
    static let headBytes = 512

    /// The head stops at the log's end (`offset`) in a small scene: the
    /// bytes from there on are what its appends write, and a head that
    /// took them in would no longer match after the store's own next
    /// record.
    init(_ document: Data, offset: Int, version: DiskVersion) {
        headCount = min(document.count, Self.headBytes, offset)
        headHash = document.prefix(headCount).withUnsafeBytes { Checksum.of($0) }
        self.offset = offset
        self.version = version
    }

    /// Where the log of `document`, a file written whole as `version`, ends: at its end.
    package init(written document: Data, version: DiskVersion) {
        self.init(document, offset: document.count, version: version)
    }

    /// Where the log ends once a record of `generation`, `count` bytes,
    /// is appended here.
    package func appending(_ count: Int, generation: UInt64) -> LogPosition {
        var next = self
        next.offset += count
        next.version.generation = generation
        return next
    }

    /// Where the log ends after `records`, read from here, the last of them
    /// ending `end` bytes after this position.
    package func advanced(over records: [SceneFileRecord], to end: Int) -> LogPosition {
        guard let last = records.last else { return self }
        var next = self
        next.offset += end
        next.version.generation = last.generation
        return next
    }

    /// Whether `head`, the file's first ``headCount`` bytes now, are the
    /// ones read then.
    package func isHead(_ head: UnsafeRawBufferPointer) -> Bool {
        head.count == headCount && Checksum.of(head) == headHash
    }

    /// Whether `head`, the document's first ``headCount`` bytes now, are
    /// the ones read then.
    package func isHead(_ head: Data) -> Bool {
        head.withUnsafeBytes { isHead($0) }
    }
}

/// One save, as a record of a scene file's log.
package struct SceneFileRecord: Equatable {
    package var generation: UInt64
    package var writer: WriterIdentity
    /// In the file's order.
    package var set: [(String, SceneValue)]
    package var removed: [String]

    package init(generation: UInt64, writer: WriterIdentity, set: [(String, SceneValue)], removed: [String]) {
        self.generation = generation
        self.writer = writer
        self.set = set
        self.removed = removed
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.generation == rhs.generation && lhs.writer == rhs.writer && lhs.removed == rhs.removed
            && lhs.set.map(\.0) == rhs.set.map(\.0) && lhs.set.map(\.1) == rhs.set.map(\.1)
    }

    /// The record's frame.
    package func frame() -> [UInt8] {
        var capacity = SceneFileFrames.overhead + 32 + writer.token.utf8.count
        for (key, value) in set { capacity += SceneFileFrames.entryByteCount(key, value) }
        for key in removed { capacity += 4 + key.utf8.count }
        var out = FrameWriter(capacity: capacity)
        out.beginFrame(.record)
        out.word(generation)
        out.writer(writer)
        out.count(set.count)
        for (key, value) in set { out.entry(key, value) }
        out.count(removed.count)
        for key in removed { out.string(key) }
        out.endFrame()
        return out.bytes
    }

    /// The record a frame's payload holds; `nil` when it holds none.
    init?(_ payload: UnsafeRawBufferPointer) {
        var reader = PayloadReader(payload)
        guard reader.byte() == SceneFileFrames.Kind.record.rawValue,
              let generation = reader.word(UInt64.self), let writer = reader.writer(),
              let setCount = reader.count(each: 6)
        else { return nil }
        var set: [(String, SceneValue)] = []
        set.reserveCapacity(setCount)
        for _ in 0..<setCount {
            guard let key = reader.string(), let value = reader.value() else { return nil }
            set.append((key, value))
        }
        guard let removedCount = reader.count(each: 4) else { return nil }
        var removed: [String] = []
        removed.reserveCapacity(removedCount)
        for _ in 0..<removedCount {
            guard let key = reader.string() else { return nil }
            removed.append(key)
        }
        guard reader.atEnd else { return nil }
        self.init(generation: generation, writer: writer, set: set, removed: removed)
    }

    /// The records in `tail`, bytes read after a whole log's end, when
    /// they are whole and the log ends after them; and where the last one
    /// ends in `tail`. `nil` for anything else (a torn tail, damage),
    /// which a full reading judges.
    package static func records(in tail: Data) -> (records: [SceneFileRecord], end: Int)? {
        tail.withUnsafeBytes { raw in
            var frames = FrameCursor(raw, at: 0)
            var records: [SceneFileRecord] = []
            while true {
                let start = frames.offset
                switch frames.next() {
                case .frame(let payload):
                    guard let record = SceneFileRecord(payload) else { return nil }
                    records.append(record)
                case .end: return (records, start)
                case .torn: return nil
                }
            }
        }
    }
}

/// Where and what a save appends to a log that ends at `end`, in a file
/// of `size` bytes: its record there, in the padding after the log.
///
/// Bytes past the log's end are padding, zeros up to the end of a 4 KiB
/// block: a record that fits there is written in place, the file's size
/// unchanged, so its `fdatasync` writes the data alone (no inode, no
/// journal); one that does not fit grows the file, padded again to the
/// next block's end. A zero length is where a reader stops.
package struct LogAppend {
    /// Where the bytes go: the log's end.
    package let offset: Int
    package let bytes: [UInt8]
    /// How many of `bytes` the record takes: written up to there, the
    /// record is whole.
    package let recordCount: Int
    /// The file's size after the append.
    package let size: Int
    /// Whether the file keeps its size: the bytes overwrite padding.
    package let inPlace: Bool

    /// Padding grows a file to a multiple of this.
    package static let block = 4096

    package init(record: [UInt8], end: Int, size: Int) {
        offset = end
        recordCount = record.count
        let logEnd = end + record.count
        inPlace = logEnd <= size
        self.size = inPlace ? size : (logEnd + Self.block - 1) / Self.block * Self.block
        // One allocation of the final length.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(inPlace ? record.count : self.size - offset)
        bytes += record
        if !inPlace { bytes += repeatElement(0, count: self.size - logEnd) }
        self.bytes = bytes
    }
}
