import Foundation

/// Reads a scene file's JSON straight into a ``SceneFile``: one pass over
/// the bytes, no intermediate JSON tree and no `Codable` machinery, which is
/// what every reload of another process's save costs (several times faster
/// than `JSONDecoder`; see `scenes-lab bench propagation`).
///
/// It accepts any JSON whose top level has the scene file's fields in any
/// order (unknown fields are skipped), and rejects everything else with a
/// ``SceneFile/Problem/malformed(_:)`` naming the byte offset. Strings must
/// be valid UTF-8; numbers are converted only once their value's `type` is
/// known.
struct SceneFileParser {
    /// The document, and the cursor in it (moved by the token readers of
    /// SceneFileParser+Tokens.swift).
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// What the top level held; `nil` fields were absent.
    struct Fields {
        var format: String?
        var version: Int?
        var scene: String?
        var generation: UInt64?
        var incarnation: String?
        var pid: Int32?
        var token: String?
        var checksum: String?
        var values: SceneValues?
        /// The checksum of `values` hashed in the file's key order, as
        /// they were read; `nil` unless that order is strictly increasing
        /// UTF-8 byte order (the order of the checksum, and of every file
        /// SceneStore writes), when a full ``Checksum/matches(_:_:)``
        /// is needed instead.
        var checksumInFileOrder: String?
        /// A version 2 file's records, up to the first that is damaged or
        /// cut short; `nil`: the file has no log.
        var records: [SceneFileRecord]?
        /// Where the records stopped before the log's end (a torn tail).
        var tornAt: Int?
        /// Where the log's last record (or its `[`, with none) ends, when
        /// the log ended whole: where the next append's bytes go on.
        var logEnd: Int?
    }

    /// - Parameter expectedKeys: room made in `values` at once (a reader
    ///   expects about as many keys as the version it holds), sparing the
    ///   dictionary's growth and rehashing.
    static func parse(_ data: Data, expectedKeys: Int = 0) throws(SceneFile.Problem) -> Fields {
        let result: Result<Fields, SceneFile.Problem> = data.withUnsafeBytes { raw in
            var parser = SceneFileParser(bytes: raw.bindMemory(to: UInt8.self), expectedKeys: expectedKeys)
            do throws(SceneFile.Problem) {
                return .success(try parser.document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private let expectedKeys: Int

    init(bytes: UnsafeBufferPointer<UInt8>, expectedKeys: Int) {
        self.bytes = bytes
        // Never more than the bytes could hold (a key and its value take 30 at least).
        self.expectedKeys = min(max(expectedKeys, 0), bytes.count / 30)
    }

    // MARK: Structure

    /// The top level. A field the format defines may appear once: a file
    /// naming two generations (or two of any field) is malformed, so the
    /// header a quick read finds (``SceneFile/peekHeader(_:)``) is always
    /// the one a full read finds.
    private mutating func document() throws(SceneFile.Problem) -> Fields {
        var fields = Fields()
        var seen: Set<String> = []
        guard try opens(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}")) else { return try end(fields) }
        repeat {
            skipWhitespace()
            let key = try string()
            try expect(UInt8(ascii: ":"))
            if Self.definedFields.contains(key) {
                guard seen.insert(key).inserted else { throw failure("field \(key.debugDescription) appears twice") }
            }
            switch key {
            case "format": fields.format = try string()
            case "version": fields.version = Int(exactly: try integer(as: Int64.self, "version"))
            case "scene": fields.scene = try string()
            case "generation": fields.generation = try integer(as: UInt64.self, "generation")
            case "incarnation": fields.incarnation = try string()
            case "checksum": fields.checksum = try string()
            case "writer": (fields.pid, fields.token) = try writer(seen: &seen)
            case "values": (fields.values, fields.checksumInFileOrder) = try values()
            case "log":
                (fields.records, fields.tornAt, fields.logEnd) = try log()
                // A torn tail ends the document: what follows is its debris.
                if fields.tornAt != nil { return fields }
                // The log comes last: an append writes over the document's end.
                skipWhitespace()
                if peek() == UInt8(ascii: ",") { throw failure("a field follows the log") }
                if peek() == UInt8(ascii: "}") {
                    index += 1
                    skipWhitespace()
                    if index == bytes.count { return fields }
                }
                // The end cut short, or debris after it: an append's tail.
                fields.tornAt = index
                fields.logEnd = nil
                return fields
            default: try skipValue(depth: 1)
            }
        } while try !closes(UInt8(ascii: "}"), "object")
        return try end(fields)
    }

    /// Only whitespace may follow the top level.
    private mutating func end(_ fields: Fields) throws(SceneFile.Problem) -> Fields {
        skipWhitespace()
        guard index == bytes.count else { throw failure("trailing bytes") }
        return fields
    }

    /// A writer's `{"pid": P, "token": T}`; each field at most once.
    mutating func writer(seen: inout Set<String>) throws(SceneFile.Problem) -> (Int32?, String?) {
        var pid: Int32?
        var token: String?
        try object { (parser, key) throws(SceneFile.Problem) in
            if key == "pid" || key == "token" {
                guard seen.insert("writer." + key).inserted else {
                    throw parser.failure("field \(key.debugDescription) of writer appears twice")
                }
            }
            switch key {
            case "pid": pid = try parser.integer(as: Int32.self, "pid")
            case "token": token = try parser.string()
            default: try parser.skipValue(depth: 1)
            }
        }
        return (pid, token)
    }

    private static let definedFields: Set<String> = [
        "format", "version", "scene", "generation", "incarnation", "checksum", "writer", "values", "log",
    ]

    /// The values, and their checksum when the file has them in checksum
    /// order (hashed as they are read: no second pass, no lookups).
    private mutating func values() throws(SceneFile.Problem) -> (SceneValues, String?) {
        var values = SceneValues(minimumCapacity: expectedKeys, bytes: bytes.count)
        var checksum = Checksum()
        var previous: String?
        var sorted = true
        try object { (parser, key) throws(SceneFile.Problem) in
            let value = try parser.value(forKey: key)
            guard values.updateValue(value, forKey: key) == nil else {
                throw parser.failure("key \(key.debugDescription) appears twice")
            }
            if sorted {
                sorted = previous.map { utf8Precedes($0, key) } ?? true
                checksum.add(key: key, value: value)
                previous = key
            }
        }
        values.trim()
        return (values, sorted ? checksum.text : nil)
    }

    /// `{"type": KIND, "value": V}`, in either order. The writer puts
    /// `type` first; then the value is converted as it is read.
    mutating func value(forKey key: String) throws(SceneFile.Problem) -> SceneValue {
        var kind: SceneValue.Kind?
        var raw: Raw?
        var converted: SceneValue?
        if try opens(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}")) {
            repeat {
                switch try valueField() {
                case .type:
                    try expect(UInt8(ascii: ":"))
                    kind = try kindName(forKey: key)
                case .value:
                    try expect(UInt8(ascii: ":"))
                    if let kind {
                        converted = try value(of: kind, forKey: key)
                    } else {
                        raw = try rawValue()
                    }
                case .other:
                    try expect(UInt8(ascii: ":"))
                    try skipValue(depth: 3)
                }
            } while try !closes(UInt8(ascii: "}"), "object")
        }
        if let converted { return converted }
        guard let kind, let raw else { throw failure("key \(key.debugDescription) lacks a type or a value") }
        guard let value = raw.value(as: kind) else {
            throw failure("key \(key.debugDescription) does not hold a valid \(kind.rawValue)")
        }
        return value
    }

    private enum ValueField { case type, value, other }

    /// The name of a field of a value object, matched on its bytes.
    private mutating func valueField() throws(SceneFile.Problem) -> ValueField {
        skipWhitespace()
        if consume(Self.quotedType) { return .type }
        if consume(Self.quotedValue) { return .value }
        _ = try string()
        return .other
    }

    /// A value's `type`, matched on its bytes.
    private mutating func kindName(forKey key: String) throws(SceneFile.Problem) -> SceneValue.Kind {
        skipWhitespace()
        for (kind, quoted) in Self.quotedKindNames where consume(quoted) {
            return kind
        }
        let name = try string()  // escaped, or unknown
        guard let known = SceneValue.Kind(rawValue: name) else {
            throw failure("unknown type \(name.debugDescription) for key \(key.debugDescription)")
        }
        return known
    }

    private static let quotedType = Array(#""type""#.utf8)
    private static let quotedValue = Array(#""value""#.utf8)
    private static let quotedKindNames = SceneValue.Kind.allCases.map { ($0, Array("\"\($0.rawValue)\"".utf8)) }

    /// A `value` whose kind is known: an integer of plain digits is
    /// converted from the bytes; anything else as ``rawValue()`` reads it.
    private mutating func value(of kind: SceneValue.Kind, forKey key: String) throws(SceneFile.Problem) -> SceneValue {
        if kind == .int, let int = plainInteger() { return .int(int) }
        guard let value = try rawValue().value(as: kind) else {
            throw failure("key \(key.debugDescription) does not hold a valid \(kind.rawValue)")
        }
        return value
    }

    /// A value before its kind is known.
    private typealias Raw = SceneValueJSON

    private mutating func rawValue() throws(SceneFile.Problem) -> Raw {
        skipWhitespace()
        guard index < bytes.count else { throw failure("value expected") }
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        default: return .number(try numberText())
        }
    }

    /// Calls `member` for each key of an object, positioned at its value.
    mutating func object(
        _ member: (inout SceneFileParser, String) throws(SceneFile.Problem) -> Void
    ) throws(SceneFile.Problem) {
        try object { (parser, key, _) throws(SceneFile.Problem) in try member(&parser, key) }
    }

    /// Calls `member` for each key of an object, positioned at its value,
    /// with the offset where the member (its key's opening quote) starts
    /// (where a record's checksum coverage ends).
    mutating func object(
        _ member: (inout SceneFileParser, String, Int) throws(SceneFile.Problem) -> Void
    ) throws(SceneFile.Problem) {
        guard try opens(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}")) else { return }
        repeat {
            skipWhitespace()
            let start = index
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key, start)
        } while try !closes(UInt8(ascii: "}"), "object")
    }

    /// Consumes `opener`; if `closer` follows at once, consumes it too.
    /// - Returns: whether members follow (the object or array is not empty).
    mutating func opens(_ opener: UInt8, closedBy closer: UInt8) throws(SceneFile.Problem) -> Bool {
        try expect(opener)
        skipWhitespace()
        guard peek() == closer else { return true }
        index += 1
        return false
    }

    /// After a member or element: consumes `,` (`false`: another follows)
    /// or `closer` (`true`: the object or array ends).
    mutating func closes(_ closer: UInt8, _ what: String) throws(SceneFile.Problem) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unterminated \(what)") }
        let next = bytes[index]
        index += 1
        if next == closer { return true }
        guard next == UInt8(ascii: ",") else { throw failure("',' or '\(Character(Unicode.Scalar(closer)))' expected") }
        return false
    }

    /// Skips any JSON value (fields a newer writer may add).
    mutating func skipValue(depth: Int) throws(SceneFile.Problem) {
        guard depth < 32 else { throw failure("nested too deeply") }
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "{"):
            try object { (parser, _) throws(SceneFile.Problem) in try parser.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            guard try opens(UInt8(ascii: "["), closedBy: UInt8(ascii: "]")) else { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try !closes(UInt8(ascii: "]"), "array")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try rawValue()
        }
    }
}
