import Foundation
import SceneStore
import ScenesCLIKit

/// The other side of `bench format-probe`: a sample scene of mixed kinds,
/// a "format 3" writer (JSON lines) and the readers a Foundation-only
/// SceneStore would have, each doing the work `SceneFile.decode` does: the
/// header checked, every value converted to its kind, the values kept as
/// the store keeps them (`SceneValues`) and their checksum verified.
extension Bench.FormatProbe {
    // MARK: The sample

    /// Key `index`'s value: the six kinds in turn (`variant` gives another
    /// value of the same kind); the doubles mostly of 17 digits. With
    /// `strings`, `"value number N"` only, as `bench codec` and `bench memory` write.
    static func value(_ index: Int, variant: Int = 0, strings: Bool = false) -> SceneValue {
        let number = index + variant * 7919
        switch strings ? 0 : index % 6 {
        case 0: return .string("value number \(number)")
        case 1: return .int(number * 7919)
        case 2: return .double(Double(number) / 7)
        case 3: return .bool(number % 2 == 0)
        case 4: return .url(URL(string: "https://example.com/items/\(number)")!)
        default: return .data(Data("payload \(number)".utf8))
        }
    }

    /// A scene of `keys` keys, `key0`...
    static func sample(keys: Int, strings: Bool = false) -> SceneFile {
        var values: [String: SceneValue] = [:]
        values.reserveCapacity(keys)
        for index in 0..<keys { values["key\(index)"] = value(index, strings: strings) }
        return SceneFile(
            scene: "bench", generation: 7, incarnation: "0123456789abcdef",
            writer: WriterIdentity(pid: 1, token: "fedcba9876543210"), values: values)
    }

    // MARK: Format 3, JSON lines

    /// How format 3 lays the values out after its header line.
    enum Lines: String, CaseIterable {
        /// One line per key: `{"key": K, "type": T, "value": V}`.
        case keyLines = "key-lines"
        /// One line holding the values object of format 2, `{K: {"type": T, "value": V}, ...}`.
        case valuesLine = "values-line"
    }

    /// `file` in format 3: a header line, then its values as `layout` lays
    /// them out, in key order (records would follow, one per line).
    static func encodeLines(_ file: SceneFile, _ layout: Lines) -> Data {
        var out = "{\"format\": \"scenestore.scene\", \"version\": 3, \"scene\": "
        appendJSONString(file.scene, to: &out)
        out += ", \"generation\": \(file.generation), \"incarnation\": "
        appendJSONString(file.incarnation, to: &out)
        out += ", \"writer\": {\"pid\": \(file.writer.pid), \"token\": "
        appendJSONString(file.writer.token, to: &out)
        out += "}, \"checksum\": \"\(Checksum.of(file.values))\"}\n"
        if layout == .valuesLine { out += "{" }
        for (index, (key, value)) in file.values.enumerated() {
            switch layout {
            case .keyLines:
                out += "{\"key\": "
                appendJSONString(key, to: &out)
                out += ", \"type\": \"\(value.kind.rawValue)\", \"value\": "
            case .valuesLine:
                if index > 0 { out += ", " }
                appendJSONString(key, to: &out)
                out += ": {\"type\": \"\(value.kind.rawValue)\", \"value\": "
            }
            switch SceneValueJSON(value) {
            case .bool(let bool): out += bool ? "true" : "false"
            case .number(let text): out += text
            case .string(let text): appendJSONString(text, to: &out)
            }
            out += layout == .keyLines ? "}\n" : "}"
        }
        if layout == .valuesLine { out += "}\n" }
        return Data(out.utf8)
    }

    // MARK: Reading through Foundation

    struct Unreadable: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A scene parsed and converted, before it is kept: the checksum the
    /// header names and the values in the order the parser gave them.
    struct Parsed {
        var generation: UInt64
        var checksum: String
        var pairs: [(String, SceneValue)]
    }

    /// What every reader does after parsing, as the store needs it: the
    /// values in key order (sorted if the parser lost the order), kept as
    /// `SceneValues`, their checksum verified.
    static func keep(_ parsed: Parsed) throws -> SceneValues {
        var pairs = parsed.pairs
        // For ASCII keys, nearly all, `<` is the same order, and faster.
        if pairs.allSatisfy({ pair in pair.0.utf8.allSatisfy { $0 < 0x80 } }) {
            if !zip(pairs, pairs.dropFirst()).allSatisfy({ $0.0 < $1.0 }) { pairs.sort { $0.0 < $1.0 } }
        } else if !zip(pairs, pairs.dropFirst()).allSatisfy({ utf8Precedes($0.0, $1.0) }) {
            pairs.sort { utf8Precedes($0.0, $1.0) }
        }
        let values = SceneValues(pairs)
        guard values.count == pairs.count else { throw Unreadable("a key appears twice") }
        guard Checksum.of(values) == parsed.checksum else { throw Unreadable("the checksum does not match") }
        return values
    }

    /// (a) Format 2 through `JSONSerialization`, whole (its log empty).
    static func parseWhole(_ data: Data) throws -> Parsed {
        guard let top = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw Unreadable("not an object") }
        var parsed = try header(top, version: 2)
        guard let values = top["values"] as? [String: Any], let log = top["log"] as? [Any], log.isEmpty else {
            throw Unreadable("no values, or a log")
        }
        parsed.pairs.reserveCapacity(values.count)
        for (key, entry) in values { parsed.pairs.append((key, try sceneValue(entry, key: key))) }
        return parsed
    }

    /// (b) Format 3, one `JSONSerialization` per line.
    static func parseLines(_ data: Data, _ layout: Lines) throws -> Parsed {
        let lines = lineRanges(data)
        guard let first = lines.first,
              let top = try JSONSerialization.jsonObject(with: data[first]) as? [String: Any]
        else { throw Unreadable("no header line") }
        var parsed = try header(top, version: 3)
        switch layout {
        case .keyLines:
            parsed.pairs.reserveCapacity(lines.count - 1)
            for line in lines.dropFirst() {
                guard let entry = try JSONSerialization.jsonObject(with: data[line]) as? [String: Any],
                      let key = entry["key"] as? String
                else { throw Unreadable("a value line without a key") }
                parsed.pairs.append((key, try sceneValue(entry, key: key)))
            }
        case .valuesLine:
            guard lines.count == 2, let values = try JSONSerialization.jsonObject(with: data[lines[1]]) as? [String: Any] else {
                throw Unreadable("no values line")
            }
            parsed.pairs.reserveCapacity(values.count)
            for (key, entry) in values { parsed.pairs.append((key, try sceneValue(entry, key: key))) }
        }
        return parsed
    }

    /// (c) Format 2 through `JSONDecoder`, whole (its log empty).
    static func parseDecodable(_ data: Data) throws -> Parsed {
        let file = try JSONDecoder().decode(DecodableFile.self, from: data)
        guard file.format == SceneFile.magic, file.version == 2, file.log.isEmpty else { throw Unreadable("not a format 2 scene file") }
        return Parsed(generation: file.generation, checksum: file.checksum, pairs: file.values.map { ($0.key, $0.value.value) })
    }

    private struct DecodableFile: Decodable {
        struct Writer: Decodable {
            var pid: Int32
            var token: String
        }

        struct Entry: Decodable {
            var value: SceneValue

            private enum CodingKeys: String, CodingKey { case type, value }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                guard let kind = SceneValue.Kind(rawValue: try container.decode(String.self, forKey: .type)) else {
                    throw Unreadable("unknown type")
                }
                let converted: SceneValue? = switch kind {
                case .bool: .bool(try container.decode(Bool.self, forKey: .value))
                case .int: .int(try container.decode(Int.self, forKey: .value))
                case .double:
                    if let double = try? container.decode(Double.self, forKey: .value) {
                        .double(double)
                    } else {
                        SceneValueJSON.string(try container.decode(String.self, forKey: .value)).value(as: .double)
                    }
                case .string, .url, .data:
                    SceneValueJSON.string(try container.decode(String.self, forKey: .value)).value(as: kind)
                }
                guard let converted else { throw Unreadable("a value is not of its type") }
                value = converted
            }
        }

        var format: String
        var version: Int
        var scene: String
        var generation: UInt64
        var incarnation: String
        var writer: Writer
        var checksum: String
        var values: [String: Entry]
        var log: [Record]

        struct Record: Decodable {}
    }

    /// The header fields of a parsed top level.
    private static func header(_ top: [String: Any], version: Int) throws -> Parsed {
        guard top["format"] as? String == SceneFile.magic, top["version"] as? Int == version,
              top["scene"] is String, top["incarnation"] is String,
              let generation = top["generation"] as? UInt64, let checksum = top["checksum"] as? String,
              let writer = top["writer"] as? [String: Any], writer["pid"] is Int32, writer["token"] is String
        else { throw Unreadable("not a format \(version) header") }
        return Parsed(generation: generation, checksum: checksum, pairs: [])
    }

    /// `{"type": T, "value": V}` (other members ignored) as a value of kind T.
    private static func sceneValue(_ entry: Any, key: String) throws -> SceneValue {
        guard let entry = entry as? [String: Any], let type = entry["type"] as? String,
              let kind = SceneValue.Kind(rawValue: type), let raw = entry["value"]
        else { throw Unreadable("key \(key) lacks a type or a value") }
        let value: SceneValue? = switch kind {
        case .bool: (raw as? Bool).map(SceneValue.bool)
        case .int: (raw as? Int).map(SceneValue.int)
        case .double:
            // A long decimal comes as an NSDecimalNumber, whose doubleValue
            // (and `as? Double`) can be one unit in the last place off:
            // read from its text instead.
            if let decimal = raw as? NSDecimalNumber { Double(decimal.description).map(SceneValue.double) } else {
                (raw as? Double).map(SceneValue.double) ?? (raw as? String).flatMap { SceneValueJSON.string($0).value(as: .double) }
            }
        case .string, .url, .data: (raw as? String).flatMap { SceneValueJSON.string($0).value(as: kind) }
        }
        guard let value else { throw Unreadable("key \(key) does not hold a valid \(type)") }
        return value
    }

    /// The ranges of `data`'s lines, without their newlines; empty lines skipped.
    private static func lineRanges(_ data: Data) -> [Range<Int>] {
        data.withUnsafeBytes { raw -> [Range<Int>] in
            guard let base = raw.baseAddress else { return [] }
            var ranges: [Range<Int>] = []
            var start = 0
            while start < raw.count {
                var end = raw.count
                if let found = memchr(base + start, 0x0A, raw.count - start) { end = UnsafeRawPointer(found) - base }
                if end > start { ranges.append(start..<end) }
                start = end + 1
            }
            return ranges
        }
    }

    // MARK: One record

    /// A record as a reader applies it.
    struct Record: Equatable {
        var generation: UInt64
        var set: [String]
        var values: [SceneValue]
        var removed: [String]
    }

    /// A record's line (format 2's record, as format 3 would append it,
    /// alone on its line) through `JSONSerialization`, as the current
    /// parser reads it: the checksum over its bytes up to its `"checksum"`
    /// member, the generation after `generation`, the writer, the set values
    /// in their kinds and the removed keys.
    static func parseRecord(_ line: Data, after generation: UInt64) throws -> Record {
        let checksumField = Array(#""checksum": "fnv1a64:"#.utf8)
        let matches = line.withUnsafeBytes { raw -> Bool in
            var count = raw.count
            while count > 0, raw[count - 1] == 0x0A { count -= 1 }
            // The line ends `"checksum": "fnv1a64:<16 hex digits>"}`.
            let fieldStart = count - checksumField.count - 16 - 2
            guard fieldStart > 0, raw[fieldStart..<(fieldStart + checksumField.count)].elementsEqual(checksumField) else { return false }
            let stored = raw[(fieldStart + checksumField.count)..<(count - 2)]
            return stored.elementsEqual(fnv1a64Hex(UnsafeRawBufferPointer(rebasing: raw[..<fieldStart])))
        }
        guard matches, let top = try JSONSerialization.jsonObject(with: line) as? [String: Any],
              top["generation"] as? UInt64 == generation + 1,
              let writer = top["writer"] as? [String: Any], writer["pid"] is Int32, writer["token"] is String
        else { throw Unreadable("not a record that follows generation \(generation)") }
        var record = Record(generation: generation + 1, set: [], values: [], removed: top["remove"] as? [String] ?? [])
        if let set = top["set"] as? [String: Any] {
            for (key, entry) in set {
                record.set.append(key)
                record.values.append(try sceneValue(entry, key: key))
            }
        }
        return record
    }

    /// FNV-1a 64 of `bytes` as 16 lowercase hex digits (a record's checksum after `fnv1a64:`).
    private static func fnv1a64Hex(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let digits = Array("0123456789abcdef".utf8)
        return stride(from: 60, through: 0, by: -4).map { digits[Int((hash >> UInt64($0)) & 0xF)] }
    }
}
