import Foundation

/// The contents of one scene file, format 3: a header, a snapshot of the
/// scene as of one generation, then one record per later save. All of it
/// is frames: a payload's length, the payload and its checksum (see
/// SceneFileFrames.swift), integers little-endian.
///
/// ```text
/// file      := "SCNSTORE" version:u32=3 snapshot record* end
/// frame     := length:u32 payload checksum:u64   (Checksum over length and payload)
/// snapshot  := frame of 0x01 generation:u64 incarnation:str writer scene:str count:u32 entry*
/// record    := frame of 0x02 generation:u64 writer count:u32 entry* count:u32 key:str*
/// writer    := pid:i32 token:str
/// entry     := key:str tag:u8 value     (0 bool:u8, 1 int:i64, 2 double:u64 bits,
///                                        3 string:str, 4 url:str, 5 data:str)
/// str       := count:u32 bytes          (UTF-8 but for data)
/// end       := the file's end, or a zero length: padding, zeros to a 4 KiB block's end
/// ```
///
/// `generation` grows by one with every save; `incarnation` is chosen when
/// the file is first created (again after a discard), so generations are
/// only compared within one incarnation, and one (incarnation, generation)
/// pair names one content. The snapshot's keys are in the order of their
/// UTF-8 bytes, each once. A record names the generation it made, its
/// writer, the keys it set and those it removed.
package struct SceneFile: Equatable {
    /// The format this code reads and writes.
    package static let currentVersion = 3
    /// No save ever gets near it; a file above it is damage, so that
    /// `generation + 1` can never overflow.
    package static let maxGeneration = UInt64(Int64.max)

    package var scene: String
    package var generation: UInt64
    package var incarnation: String
    package var writer: WriterIdentity
    package var values: SceneValues

    package init(scene: String, generation: UInt64, incarnation: String, writer: WriterIdentity, values: SceneValues) {
        self.scene = scene
        self.generation = generation
        self.incarnation = incarnation
        self.writer = writer
        self.values = values
    }

    package init(scene: String, generation: UInt64, incarnation: String, writer: WriterIdentity, values: [String: SceneValue]) {
        self.init(scene: scene, generation: generation, incarnation: incarnation, writer: writer, values: SceneValues(values))
    }

    package var version: DiskVersion {
        DiskVersion(incarnation: incarnation, generation: generation)
    }

    /// Why bytes on disk are not a loadable scene.
    package enum Problem: Error, Equatable {
        /// Not a scene file: another format, truncated, a frame that does
        /// not hold what it should.
        case malformed(String)
        /// The snapshot does not match its checksum.
        case badChecksum
        /// Another version of this format (a newer SceneStore's): refuse, never destroy.
        case newerVersion(Int)

        /// What a quarantined file's name says of it.
        package var reason: String {
            switch self {
            case .malformed: "malformed"
            case .badChecksum: "bad-checksum"
            case .newerVersion: "newer-version"
            }
        }
    }

    package static func decode(_ data: Data) -> Result<SceneFile, Problem> {
        decoded(data).map(\.file)
    }

    /// ``decode(_:)``, and where the file's log ends.
    package static func decoded(_ data: Data) -> Result<Decoded, Problem> {
        data.withUnsafeBytes { raw in
            Result { () throws(Problem) in try decoded(raw) }
        }
    }

    private static func decoded(_ raw: UnsafeRawBufferPointer) throws(Problem) -> Decoded {
        var frames = try snapshotFrames(raw)
        let payload: UnsafeRawBufferPointer
        switch frames.next() {
        case .frame(let snapshot): payload = snapshot
        case .end: throw .malformed("no snapshot")
        case .torn: throw frames.tornFrameIsWithinBytes ? .badChecksum : .malformed("the snapshot is cut short")
        }
        var file = try snapshot(payload)
        var applied = false
        while true {
            let start = frames.offset
            switch frames.next() {
            case .frame(let payload):
                guard let record = SceneFileRecord(payload) else { throw .malformed("the record at byte \(start) is malformed") }
                if let problem = file.apply([record]) { throw problem }
                applied = true
            case .end:
                if applied { file.values.trim() }  // the records' replaced entries and growth
                return Decoded(file: file, logEnd: start)
            case .torn:
                // A record cut short is the log's tail only if no whole
                // record follows it: one followed was damaged before the end.
                if frames.tornFrameIsFollowed {
                    throw .malformed("the record at byte \(start) is damaged, and records follow it")
                }
                if applied { file.values.trim() }
                return Decoded(file: file, logEnd: nil)
            }
        }
    }

    /// The frames of `raw` after its header, which must be this format's.
    private static func snapshotFrames(_ raw: UnsafeRawBufferPointer) throws(Problem) -> FrameCursor {
        let magic = SceneFileFrames.magic
        guard raw.count >= SceneFileFrames.headerCount, raw.prefix(magic.count).elementsEqual(magic) else {
            throw .malformed("not a SceneStore scene file")
        }
        let version = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: magic.count, as: UInt32.self))
        guard version == currentVersion else {
            throw version > currentVersion ? .newerVersion(Int(version)) : .malformed("format version \(version)")
        }
        return FrameCursor(raw, at: SceneFileFrames.headerCount)
    }

    /// The snapshot's payload as a file of no records.
    private static func snapshot(_ payload: UnsafeRawBufferPointer) throws(Problem) -> SceneFile {
        var reader = PayloadReader(payload)
        guard reader.byte() == SceneFileFrames.Kind.snapshot.rawValue,
              let generation = reader.word(UInt64.self), let incarnation = reader.string(),
              let writer = reader.writer(), let scene = reader.string(),
              let count = reader.count(each: 6)
        else { throw .malformed("the snapshot is malformed") }
        guard generation <= maxGeneration else { throw .malformed("generation \(generation) is out of range") }
        var values = SceneValues(minimumCapacity: count, bytes: payload.count)
        var previous: String?
        for _ in 0..<count {
            guard let key = reader.string(), let value = reader.value() else {
                throw .malformed("the snapshot's entry at byte \(reader.index) is malformed")
            }
            if let previous, !utf8Precedes(previous, key) {
                throw .malformed("key \(key.debugDescription) is out of order or repeated")
            }
            values.updateValue(value, forKey: key)
            previous = key
        }
        guard reader.atEnd else { throw .malformed("bytes after the snapshot's entries") }
        guard values.count == count else { throw .malformed("two keys of the snapshot are one (canonically equivalent)") }
        return SceneFile(scene: scene, generation: generation, incarnation: incarnation, writer: writer, values: values)
    }

    /// What a full reading found (``decoded(_:)``).
    package struct Decoded {
        package var file: SceneFile
        /// Where the log's last record ends, when the log ended whole.
        package var logEnd: Int?

        /// Where the next reading of `data`, this document, goes on.
        package func position(in data: Data) -> LogPosition? {
            logEnd.map { LogPosition(data, offset: $0, version: file.version) }
        }
    }

    /// Applies records, in order; a problem when one does not follow the
    /// generation before it.
    package mutating func apply(_ records: [SceneFileRecord]) -> Problem? {
        for record in records {
            guard generation < Self.maxGeneration, record.generation == generation + 1 else {
                return .malformed("a record of generation \(record.generation) follows generation \(generation)")
            }
            for key in record.removed { values.removeValue(forKey: key) }
            for (key, value) in record.set { values[key] = value }
            generation = record.generation
            writer = record.writer
        }
        return nil
    }

    /// Why a well-formed file still is not scene `id` within `limits`: it
    /// names another scene (a hard link, a copy), or holds a key or value
    /// a `set` would have refused. `nil` when it is fine.
    package func problem(asScene id: SceneID, limits: SceneRegistry.Limits) -> Problem? {
        guard scene == id.rawValue else {
            return .malformed("the file is scene \(scene.debugDescription), not \(id.rawValue.debugDescription)")
        }
        var total = 0
        for (key, value) in values {
            if let reason = SceneStore.keyProblem(key, limit: limits.maxKeyBytes) {
                return .malformed("key \(key.debugDescription): \(reason)")
            }
            guard value.byteCount <= limits.maxValueBytes else {
                return .malformed("value of \(key.debugDescription) is \(value.byteCount) bytes, above the limit \(limits.maxValueBytes)")
            }
            total += key.utf8.count + value.byteCount
        }
        guard total <= limits.maxSceneBytes else {
            return .malformed("\(total) bytes of keys and values, above the limit \(limits.maxSceneBytes)")
        }
        return nil
    }

    /// The version a whole log holds and where it ends, read without
    /// decoding any value: the snapshot's incarnation and the last
    /// record's generation, every frame's checksum checked. `nil` for
    /// anything else (a torn tail, damage, another format), which then
    /// gets a full ``decode(_:)``.
    package static func peekVersion(_ data: Data) -> DiskVersion? {
        data.withUnsafeBytes { peek($0)?.version }
    }

    package static func peek(_ raw: UnsafeRawBufferPointer) -> (version: DiskVersion, end: Int)? {
        guard var frames = try? snapshotFrames(raw), case .frame(let payload) = frames.next() else { return nil }
        var reader = PayloadReader(payload)
        guard reader.byte() == SceneFileFrames.Kind.snapshot.rawValue, var generation = reader.word(UInt64.self),
              let incarnation = reader.string()
        else { return nil }
        while true {
            let start = frames.offset
            switch frames.next() {
            case .frame(let payload):
                var record = PayloadReader(payload)
                guard record.byte() == SceneFileFrames.Kind.record.rawValue, let next = record.word(UInt64.self),
                      generation < maxGeneration, next == generation + 1
                else { return nil }
                generation = next
            case .end: return (DiskVersion(incarnation: incarnation, generation: generation), start)
            case .torn: return nil
            }
        }
    }
}

/// Who wrote a scene file: the process and one registry instance in it.
package struct WriterIdentity: Equatable, Sendable {
    package let pid: Int32
    package let token: String

    package init(pid: Int32, token: String) {
        self.pid = pid
        self.token = token
    }

    static func current() -> WriterIdentity {
        WriterIdentity(pid: getpid(), token: randomToken())
    }
}

/// 16 random hex digits.
func randomToken() -> String {
    let value = UInt64.random(in: .min ... .max)
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
