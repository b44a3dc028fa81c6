import Foundation

extension SceneFile {
    /// The file's bytes: header fields first, in a fixed order, then one
    /// value per line, keys sorted by their UTF-8 bytes. Written by hand rather than through
    /// `JSONEncoder`: the output is the same JSON a person reads, produced
    /// several times faster (see `scenes-lab bench commit`), and the header can
    /// be read back without parsing the values (``peekVersion(_:)``).
    package func encoded() -> Data {
        let keys = Checksum.sortedKeys(of: values)
        var out = JSONText()
        out.raw("{\n  \"format\": ")
        out.string(Self.magic)
        out.raw(",\n  \"version\": \(Self.currentVersion),\n  \"scene\": ")
        out.string(scene)
        out.raw(",\n  \"generation\": \(generation),\n  \"incarnation\": ")
        out.string(incarnation)
        out.raw(",\n  \"writer\": {\"pid\": \(writer.pid), \"token\": ")
        out.string(writer.token)
        out.raw("},\n  \"checksum\": ")
        out.string(Checksum.of(values, sortedKeys: keys))
        out.raw(",\n  \"values\": {")
        var first = true
        for key in keys {
            guard let value = values[key] else { continue }
            out.raw(first ? "\n    " : ",\n    ")
            first = false
            out.string(key)
            out.raw(": {\"type\": \"\(value.kind.rawValue)\", \"value\": ")
            out.value(value)
            out.raw("}")
        }
        out.raw(first ? "}\n}\n" : "\n  }\n}\n")
        return Data(out.bytes)
    }
}

/// A growing buffer of JSON text.
private struct JSONText {
    var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(4096)
    }

    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func value(_ value: SceneValue) {
        switch SceneValueJSON(value) {
        case .bool(let bool): raw(bool ? "true" : "false")
        case .number(let text): raw(text)
        case .string(let text): string(text)
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else (including non-ASCII UTF-8) as is.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
