/// FNV-1a, 64 bit, over a canonical binary form of a scene's values: tells
/// a damaged file from a good one (not a defence against tampering).
///
/// The canonical form, for each key in the order of its UTF-8 bytes: the key,
/// the kind's name, then the value — Bool as one byte, Int and Double as
/// their 8-byte little-endian bit pattern (every NaN as the canonical
/// quiet NaN, the one the file can spell), String and URL as UTF-8, Data as
/// is; every variable-length field is preceded by its length as 8 bytes.
/// Computing it needs no JSON encoding, so verifying a file costs one pass
/// over its values.
package struct Checksum {
    static let prefix = "fnv1a64:"

    /// The canonical bytes, hashed in one tight loop at the end.
    private var bytes: [UInt8] = []

    package static func of(_ values: [String: SceneValue]) -> String {
        of(values, sortedKeys: sortedKeys(of: values))
    }

    /// The keys in the order of their UTF-8 bytes: a total order, unlike
    /// Swift's `String <`, under which a decomposed `"e\u{301}"` and a
    /// precomposed `"\u{E9}:"` are unequal yet neither comes first (so
    /// their order would follow the dictionary's per-process hash seed).
    static func sortedKeys(of values: [String: SceneValue]) -> [String] {
        values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Whether `checksum` is right for `values`: in today's key order, or
    /// in `String` order, which files written before the byte order used
    /// (the same for ASCII keys; only checked when the first one fails).
    static func matches(_ checksum: String, _ values: [String: SceneValue]) -> Bool {
        checksum == of(values) || checksum == of(values, sortedKeys: values.keys.sorted())
    }

    /// The checksum when the caller has the keys sorted already.
    static func of(_ values: [String: SceneValue], sortedKeys: [String]) -> String {
        var checksum = Checksum()
        for key in sortedKeys {
            guard let value = values[key] else { continue }
            checksum.add(field: key.utf8)
            checksum.add(field: value.kind.rawValue.utf8)
            switch value {
            case .bool(let bool): checksum.bytes.append(bool ? 1 : 0)
            case .int(let int): checksum.add(word: UInt64(bitPattern: Int64(int)))
            case .double(let double): checksum.add(word: double.isNaN ? Double.nan.bitPattern : double.bitPattern)
            case .string(let string): checksum.add(field: string.utf8)
            case .url(let url): checksum.add(field: url.absoluteString.utf8)
            case .data(let data): checksum.add(field: data)
            }
        }
        return checksum.text
    }

    private var text: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                hash = (hash ^ UInt64(buffer[index])) &* 0x0000_0100_0000_01b3
                index += 1
            }
        }
        let hex = String(hash, radix: 16)
        return Self.prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private mutating func add(word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func add<Bytes: Collection<UInt8>>(field: Bytes) {
        add(word: UInt64(field.count))
        bytes.append(contentsOf: field)
    }
}
