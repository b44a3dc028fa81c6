import Foundation

/// The contents of one scene file: format version 1 below; version 2
/// (SceneFileLog.swift) adds a log of later saves after `values`.
///
/// ```json
/// {
///   "format": "scenestore.scene",
///   "version": 1,
///   "scene": "main",
///   "generation": 7,
///   "incarnation": "4f0c9d2ab1e38a77",
///   "writer": {"pid": 4242, "token": "9b1d07c3e5a2f468"},
///   "checksum": "fnv1a64:7c2fa3a1d3e4b5c6",
///   "values": {
///     "selectedTab": {"type": "int", "value": 2}
///   }
/// }
/// ```
///
/// `generation` grows by one with every save; `incarnation` is chosen when
/// the file is first created (again after a discard), so generations are
/// only compared within one incarnation, and one (incarnation, generation)
/// pair names one content. `checksum` covers the values (see ``Checksum``).
/// Readers accept the fields in any order; the writer puts the header first.
package struct SceneFile: Equatable {
    package static let magic = "scenestore.scene"
    /// The newest format this code reads (``Layout/log``).
    package static let currentVersion = 2
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
        /// Not a scene file: not JSON, truncated, wrong magic, missing fields.
        case malformed(String)
        /// The payload does not match its checksum.
        case badChecksum
        /// A newer format than this code knows: refuse, never destroy.
        case newerVersion(Int)
    }

    package static func decode(_ data: Data, expectedKeys: Int = 0) -> Result<SceneFile, Problem> {
        decoded(data, expectedKeys: expectedKeys).map(\.file)
    }

    /// ``decode(_:expectedKeys:)``, and where the file's log ends.
    package static func decoded(_ data: Data, expectedKeys: Int) -> Result<Decoded, Problem> {
        let fields: SceneFileParser.Fields
        do throws(Problem) {
            fields = try SceneFileParser.parse(data, expectedKeys: expectedKeys)
        } catch {
            // Tell a newer format (refused, kept) from damage (quarantined).
            if let header = try? JSONDecoder().decode(Header.self, from: data),
               header.format == magic, header.version > currentVersion {
                return .failure(.newerVersion(header.version))
            }
            return .failure(error)
        }
        guard fields.format == magic else {
            return .failure(.malformed("format is \((fields.format ?? "missing").debugDescription), not \(magic)"))
        }
        guard let version = fields.version else { return .failure(.malformed("no version")) }
        guard version <= currentVersion else { return .failure(.newerVersion(version)) }
        guard version >= 1 else { return .failure(.malformed("version \(version) is below 1")) }
        guard let scene = fields.scene, let generation = fields.generation, let incarnation = fields.incarnation,
              let pid = fields.pid, let token = fields.token, let checksum = fields.checksum,
              let values = fields.values else {
            return .failure(.malformed("a required field is missing"))
        }
        guard generation <= maxGeneration else {
            return .failure(.malformed("generation \(generation) is out of range"))
        }
        guard checksum == fields.checksumInFileOrder || Checksum.matches(checksum, values) else {
            return .failure(.badChecksum)
        }
        var file = SceneFile(
            scene: scene,
            generation: generation,
            incarnation: incarnation,
            writer: WriterIdentity(pid: pid, token: token),
            values: values
        )
        switch (version, fields.records) {
        case (1, nil):
            return .success(Decoded(file: file))
        case (1, _?):
            return .failure(.malformed("a log in a version 1 file"))
        case (_, nil):
            return .failure(.malformed("no log"))
        case (_, let records?):
            // A record cut short is the log's tail only if nothing whole
            // follows it: a file that still ends with a complete record
            // was damaged before its end.
            if let torn = fields.tornAt, data.withUnsafeBytes({ SceneFileTail.read($0.bindMemory(to: UInt8.self)) }) != nil {
                return .failure(.malformed("the record at byte \(torn) is damaged, and records follow it"))
            }
            if let problem = file.apply(records) { return .failure(problem) }
            if !records.isEmpty { file.values.trim() }  // the records' replaced entries and growth
            return .success(Decoded(file: file, logEnd: fields.logEnd.map { ($0, records.isEmpty) }))
        }
    }

    /// What a full reading found (``decoded(_:expectedKeys:)``).
    package struct Decoded {
        package var file: SceneFile
        /// Where a whole log's last record ends, and whether it has none.
        package var logEnd: (offset: Int, first: Bool)?

        /// Where the next reading of `data`, this document, goes on.
        package func position(in data: Data) -> LogPosition? {
            logEnd.map { LogPosition(data, offset: $0.offset, first: $0.first, version: file.version) }
        }
    }

    /// Applies a version 2 file's records, in order; a problem when one
    /// does not follow the generation before it.
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

    /// The version a file written by ``encoded()`` holds, read from its
    /// header without parsing the values; `nil` for anything else (which
    /// then gets a full ``decode(_:)``). Used to skip decoding a version
    /// this process already has: its own saves, and unchanged files.
    package static func peekVersion(_ data: Data) -> DiskVersion? {
        peekHeader(data).map { DiskVersion(incarnation: $0.incarnation, generation: $0.generation) }
    }

    /// The incarnation, generation and writer token behind
    /// ``peekVersion(_:)``.
    ///
    /// Only the exact header ``encoded()`` writes is read — the fields in
    /// its order and spacing, the scene id, generation, incarnation and
    /// token without escapes — so a file laid out any other way (another
    /// field first, a field twice) is never taken for a version it does not
    /// hold: it gets a full decode.
    package static func peekHeader(_ data: Data) -> (incarnation: String, generation: UInt64, writerToken: String)? {
        peekHeader(data, tail: data)
    }

    /// ``peekHeader(_:)`` of a document whose first bytes are `head` and
    /// whose last bytes are `tail` (a version 2 file's last record names
    /// its version).
    static func peekHeader(_ head: Data, tail: Data) -> (incarnation: String, generation: UInt64, writerToken: String)? {
        let header = head.withUnsafeBytes { raw -> (layout: Layout, incarnation: String, generation: UInt64, writerToken: String)? in
            var reader = FixedLayoutReader(bytes: raw.bindMemory(to: UInt8.self))
            // The magic (``magic``) spelled out: a static string costs no allocation.
            guard reader.expect("{\n  \"format\": \"scenestore.scene\",\n  \"version\": ") else { return nil }
            let layout: Layout
            if reader.expect("1,") {
                layout = .document
            } else if reader.expect("2,") {
                layout = .log
            } else {
                return nil
            }
            guard reader.expect("\n  \"scene\": \""),
                  reader.plainString() != nil,
                  reader.expect(",\n  \"generation\": "),
                  let generation = reader.number(),
                  reader.expect(",\n  \"incarnation\": \""),
                  let incarnation = reader.plainString(),
                  reader.expect(",\n  \"writer\": {\"pid\": "),
                  reader.signedNumber(),
                  reader.expect(", \"token\": \""),
                  let token = reader.plainString(),
                  reader.expect("},\n")
            else { return nil }
            return (layout, incarnation, generation, token)
        }
        guard let header else { return nil }
        guard header.layout == .log else { return (header.incarnation, header.generation, header.writerToken) }
        let end = tail.withUnsafeBytes { SceneFileTail.read($0.bindMemory(to: UInt8.self)) }
        switch end?.tail {
        case nil: return nil
        case .noRecords: return (header.incarnation, header.generation, header.writerToken)
        case .record(let generation, let token): return (header.incarnation, generation, token)
        }
    }

    private struct Header: Decodable {
        let format: String
        let version: Int
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

/// Reads the fixed layout of a scene file's header (or a record), front to back.
struct FixedLayoutReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// Consumes `text` if the bytes continue with it.
    mutating func expect(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { text in
            guard bytes.count - index >= text.count, let here = bytes.baseAddress, let token = text.baseAddress,
                  memcmp(here + index, token, text.count) == 0
            else { return false }
            index += text.count
            return true
        }
    }

    /// Digits (at most 19, so any value fits a `UInt64`).
    mutating func number() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count, (48...57).contains(bytes[index]), index - start < 19 {
            value = value * 10 + UInt64(bytes[index] - 48)
            index += 1
        }
        return index > start ? value : nil
    }

    /// Digits after an optional `-` (a writer's pid as any file may spell it).
    /// - Returns: whether there were digits.
    mutating func signedNumber() -> Bool {
        _ = expect("-")
        return number() != nil
    }

    /// The rest of a string literal whose opening quote was consumed, up
    /// to and including its closing quote; `nil` if it holds an escape or
    /// a control character, or does not end.
    mutating func plainString() -> String? {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            index += 1
        }
        return nil
    }
}
