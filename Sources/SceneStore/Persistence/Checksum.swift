/// FNV-1a, 64 bit, over a canonical binary form of a scene's values: tells
/// a damaged file from a good one (not a defence against tampering).
///
/// The canonical form, for each key in sorted (code unit) order: the key,
/// the kind's name, then the value — Bool as one byte, Int and Double as
/// their 8-byte little-endian bit pattern, String and URL as UTF-8, Data as
/// is; every variable-length field is preceded by its length as 8 bytes.
/// Computing it needs no JSON encoding, so verifying a file costs one pass
/// over its values.
struct Checksum {
    static let prefix = "fnv1a64:"

    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    static func of(_ values: [String: SceneValue]) -> String {
        var checksum = Checksum()
        for key in values.keys.sorted() {
            guard let value = values[key] else { continue }
            checksum.add(field: key.utf8)
            checksum.add(field: value.kind.rawValue.utf8)
            switch value {
            case .bool(let bool): checksum.add(byte: bool ? 1 : 0)
            case .int(let int): checksum.add(word: UInt64(bitPattern: Int64(int)))
            case .double(let double): checksum.add(word: double.bitPattern)
            case .string(let string): checksum.add(field: string.utf8)
            case .url(let url): checksum.add(field: url.absoluteString.utf8)
            case .data(let data): checksum.add(field: data)
            }
        }
        return checksum.text
    }

    private var text: String {
        let hex = String(hash, radix: 16)
        return Self.prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private mutating func add(byte: UInt8) {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
    }

    private mutating func add(word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) {
            add(byte: UInt8(truncatingIfNeeded: word >> UInt64(shift)))
        }
    }

    private mutating func add<Bytes: Collection<UInt8>>(field bytes: Bytes) {
        add(word: UInt64(bytes.count))
        for byte in bytes { add(byte: byte) }
    }
}
