import Foundation

extension SceneFile {
    /// The file's bytes: header fields first, in a fixed order, then one
    /// value per line, keys sorted by their UTF-8 bytes. Written by hand rather than through
    /// `JSONEncoder`: the output is the same JSON a person reads, produced
    /// several times faster (see `scenes-lab bench commit`), and the header can
    /// be read back without parsing the values (``peekVersion(_:)``).
    package func encoded() -> Data {
        var encoder = SceneFileEncoder()
        return encoder.encode(self, over: nil, edited: [])
    }
}

/// Writes scene files for one store, keeping each value's JSON text and
/// the sorted key order from one save to the next: a save over the file
/// the encoder wrote last encodes only the keys it changed and sorts
/// nothing, so its cost is copying bytes and one checksum pass rather than
/// escaping and sorting the whole scene again. The bytes are the same as a
/// fresh encoding's (``SceneFile/encoded()``).
package struct SceneFileEncoder {
    private struct Entry {
        let key: String
        let value: SceneValue
        /// `"key": {"type": "int", "value": 5}`
        let json: [UInt8]
    }

    /// Sorted by the keys' UTF-8 bytes.
    private var entries: [Entry] = []
    /// The file `entries` encode, once it is known to be on disk.
    private var version: DiskVersion?

    package init() {}

    /// The bytes of `file`, which is `base` with the values of `edited`
    /// changed. Reuses what was encoded for `base` when that is the file
    /// this encoder encoded last and ``written(_:)`` confirmed.
    package mutating func encode(_ file: SceneFile, over base: SceneFile?, edited: some Collection<String>) -> Data {
        let reused = base.map { version == $0.version && update(edited, to: file.values) } ?? false
        if !reused { rebuild(from: file.values) }
        version = nil
        return bytes(of: file)
    }

    /// Confirms that the file last encoded is on disk as `version`, so the
    /// next save over it can reuse its encoding. Until then (a failed
    /// write) the next save encodes everything: another writer may take the
    /// version number this encoding never got.
    package mutating func written(_ version: DiskVersion) {
        self.version = version
    }

    /// Applies the edited keys; false (and nothing reliable left) when the
    /// entries do not end up holding exactly `values`.
    ///
    /// Keys are matched by their bytes, in the spelling the dictionary
    /// keeps: `"\u{E9}"` and `"e\u{301}"` are one dictionary key (String
    /// equality is canonical equivalence) but two spellings in a file. An
    /// edit that removed a key under another spelling leaves an extra
    /// entry, which the count check catches (then everything is encoded
    /// again); every other edit leaves the entries equal to `values`.
    private mutating func update(_ edited: some Collection<String>, to values: [String: SceneValue]) -> Bool {
        for key in edited {
            if let slot = values.index(forKey: key) {
                let (stored, value) = values[slot]
                let index = insertionIndex(of: stored)
                if index < entries.count, entries[index].key.utf8.elementsEqual(stored.utf8) {
                    entries[index] = Self.entry(stored, value)
                } else {
                    entries.insert(Self.entry(stored, value), at: index)
                }
            } else {
                let index = insertionIndex(of: key)
                if index < entries.count, entries[index].key.utf8.elementsEqual(key.utf8) {
                    entries.remove(at: index)
                }
            }
        }
        return entries.count == values.count
    }

    /// The first index whose key does not come before `key`.
    private func insertionIndex(of key: String) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if utf8Precedes(entries[middle].key, key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func rebuild(from values: [String: SceneValue]) {
        entries = Checksum.sortedKeys(of: values).compactMap { key in values[key].map { Self.entry(key, $0) } }
    }

    private static func entry(_ key: String, _ value: SceneValue) -> Entry {
        var out = JSONText(capacity: key.utf8.count + 40)
        out.string(key)
        out.raw(": {\"type\": \"")
        out.utf8(value.kind.rawValue)
        out.raw("\", \"value\": ")
        out.value(value)
        out.raw("}")
        return Entry(key: key, value: value, json: out.bytes)
    }

    private func bytes(of file: SceneFile) -> Data {
        var checksum = Checksum()
        var size = 0
        for index in entries.indices {
            checksum.add(key: entries[index].key, value: entries[index].value)
            size += entries[index].json.count + 6
        }
        var out = JSONText(capacity: size + 512)
        out.raw("{\n  \"format\": ")
        out.string(SceneFile.magic)
        out.raw(",\n  \"version\": ")
        out.number(UInt64(SceneFile.currentVersion))
        out.raw(",\n  \"scene\": ")
        out.string(file.scene)
        out.raw(",\n  \"generation\": ")
        out.number(file.generation)
        out.raw(",\n  \"incarnation\": ")
        out.string(file.incarnation)
        out.raw(",\n  \"writer\": {\"pid\": ")
        if file.writer.pid < 0 { out.raw("-") }
        out.number(UInt64(file.writer.pid.magnitude))
        out.raw(", \"token\": ")
        out.string(file.writer.token)
        out.raw("},\n  \"checksum\": ")
        out.string(checksum.text)
        out.raw(",\n  \"values\": {")
        for index in entries.indices {
            out.raw(index == 0 ? "\n    " as StaticString : ",\n    ")
            out.bytes.append(contentsOf: entries[index].json)
        }
        out.raw(entries.isEmpty ? "}\n}\n" as StaticString : "\n  }\n}\n")
        return out.bytes.withUnsafeBytes { Data($0) }
    }
}

/// A growing buffer of JSON text.
private struct JSONText {
    var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func utf8(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Decimal digits, without a `String` in between.
    mutating func number(_ value: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func value(_ value: SceneValue) {
        switch SceneValueJSON(value) {
        case .bool(let bool): raw(bool ? "true" : "false")
        case .number(let text): utf8(text)
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
