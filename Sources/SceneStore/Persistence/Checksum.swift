#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// FNV-1a, 64 bit, over a canonical binary form of a scene's values: tells
/// a damaged file from a good one (not a defence against tampering).
///
/// The canonical form, for each key in the order of its UTF-8 bytes: the key,
/// the kind's name, then the value — Bool as one byte, Int and Double as
/// their 8-byte little-endian bit pattern (every NaN as the canonical
/// quiet NaN, the one the file can spell), String and URL as UTF-8, Data as
/// is; every variable-length field is preceded by its length as 8 bytes.
/// Computing it needs no JSON encoding and no buffer: the bytes are hashed
/// as they are produced, in one pass over the values.
package struct Checksum {
    static let prefix = "fnv1a64:"

    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    package static func of(_ values: [String: SceneValue]) -> String {
        of(values, sortedKeys: sortedKeys(of: values))
    }

    /// The keys in the order of their UTF-8 bytes: a total order, unlike
    /// Swift's `String <`, under which a decomposed `"e\u{301}"` and a
    /// precomposed `"\u{E9}:"` are unequal yet neither comes first (so
    /// their order would follow the dictionary's per-process hash seed).
    static func sortedKeys(of values: [String: SceneValue]) -> [String] {
        values.keys.sorted(by: utf8Precedes)
    }

    /// Whether `checksum` is right for `values`: in today's key order, or
    /// in `String` order, which files written before the byte order used
    /// (the same for ASCII keys; only checked when the first one fails).
    static func matches(_ checksum: String, _ values: [String: SceneValue]) -> Bool {
        checksum == of(values, sortedKeys: sortedKeys(of: values))
            || checksum == of(values, sortedKeys: values.keys.sorted())
    }

    /// The checksum when the caller has the keys sorted already.
    static func of(_ values: [String: SceneValue], sortedKeys: [String]) -> String {
        var checksum = Checksum()
        for key in sortedKeys {
            guard let value = values[key] else { continue }
            checksum.add(key: key, value: value)
        }
        return checksum.text
    }

    /// Adds one key and its value, the next in key order.
    mutating func add(key: String, value: SceneValue) {
        add(field: key)
        add(field: value.kind.rawValue)
        switch value {
        case .bool(let bool): add(byte: bool ? 1 : 0)
        case .int(let int): add(word: UInt64(bitPattern: Int64(int)))
        case .double(let double): add(word: double.isNaN ? Double.nan.bitPattern : double.bitPattern)
        case .string(let string): add(field: string)
        case .url(let url): add(field: url.absoluteString)
        case .data(let data):
            add(word: UInt64(data.count))
            data.withUnsafeBytes { add(bytes: $0) }
        }
    }

    var text: String {
        let hex = String(hash, radix: 16)
        return Self.prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private mutating func add(byte: UInt8) {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    private mutating func add(bytes: UnsafeRawBufferPointer) {
        var hash = self.hash
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        self.hash = hash
    }

    private mutating func add(word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { add(bytes: $0) }
    }

    private mutating func add(field: String) {
        let added: Void? = field.utf8.withContiguousStorageIfAvailable { utf8 in
            add(word: UInt64(utf8.count))
            add(bytes: UnsafeRawBufferPointer(utf8))
        }
        if added == nil {
            let utf8 = Array(field.utf8)
            add(word: UInt64(utf8.count))
            utf8.withUnsafeBytes { add(bytes: $0) }
        }
    }
}

/// Whether `a` comes before `b` in the order of their UTF-8 bytes (the
/// order of the keys in a scene file and in its checksum).
func utf8Precedes(_ a: String, _ b: String) -> Bool {
    let order = a.utf8.withContiguousStorageIfAvailable { left in
        b.utf8.withContiguousStorageIfAvailable { right -> Bool in
            let shared = min(left.count, right.count)
            if shared > 0, let l = left.baseAddress, let r = right.baseAddress {
                let order = memcmp(l, r, shared)
                if order != 0 { return order < 0 }
            }
            return left.count < right.count
        }
    }
    return (order ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
}
