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

    package static func of(_ values: SceneValues) -> String {
        var checksum = Checksum()
        for (key, value) in values.inUTF8Order { checksum.add(key: key, value: value) }
        return checksum.text
    }

    package static func of(_ values: [String: SceneValue]) -> String {
        of(SceneValues(values))
    }

    /// The keys in the order of their UTF-8 bytes: a total order, unlike
    /// Swift's `String <`, under which a decomposed `"e\u{301}"` and a
    /// precomposed `"\u{E9}:"` are unequal yet neither comes first (so
    /// their order would follow the dictionary's per-process hash seed).
    static func sortedKeys(of values: SceneValues) -> [String] {
        values.keys.sorted(by: utf8Precedes)
    }

    /// Whether `checksum` is right for `values`: in today's key order, or
    /// in `String` order, which files written before the byte order used
    /// (the same for ASCII keys; only checked when the first one fails).
    ///
    /// `String` order is sorted from the byte order, not from the
    /// dictionary's: for keys that `<` cannot order (see
    /// ``sortedKeys(of:)``) the outcome of a sort follows the order it
    /// starts from, and two dictionaries of the same values, one read
    /// whole and one by difference, judged one file differently (the
    /// fuzzer found it: 16 of 60 processes, each with its own hash seed).
    static func matches(_ checksum: String, _ values: SceneValues) -> Bool {
        let byBytes = sortedKeys(of: values)
        return checksum == of(values, sortedKeys: byBytes)
            || checksum == of(values, sortedKeys: byBytes.sorted())
    }

    /// The checksum when the caller has the keys sorted already.
    static func of(_ values: SceneValues, sortedKeys: [String]) -> String {
        var checksum = Checksum()
        for key in sortedKeys {
            guard let value = values[key] else { continue }
            checksum.add(key: key, value: value)
        }
        return checksum.text
    }

    /// Adds one key and its value, the next in key order: the one
    /// definition of what the checksum covers.
    mutating func add(key: String, value: SceneValue) {
        add(field: key)
        add(field: value.kind.rawValue)
        switch value {
        case .bool(let bool): withUnsafeBytes(of: UInt8(bool ? 1 : 0)) { add(bytes: $0) }
        case .int(let int): add(word: UInt64(bitPattern: Int64(int)))
        case .double(let double): add(word: double.isNaN ? Double.nan.bitPattern : double.bitPattern)
        case .string(let string): add(field: string)
        case .url(let url): add(field: url.absoluteString)
        case .data(let data):
            add(word: UInt64(data.count))
            data.withUnsafeBytes { add(bytes: $0) }
        }
    }

    /// `fnv1a64:` and the hash as 16 hex digits.
    var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.prefix.utf8.count + 16)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``text``'s bytes appended to `bytes`, without a `String` between.
    func appendText(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.prefix.utf8)
        var shift = 60
        while shift >= 0 {
            bytes.append(Self.hexDigits[Int((hash >> UInt64(shift)) & 0xF)])
            shift -= 4
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func add(word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { add(bytes: $0) }
    }

    private mutating func add(field: String) {
        var field = field
        field.withUTF8 { utf8 in
            add(word: UInt64(utf8.count))
            add(bytes: UnsafeRawBufferPointer(utf8))
        }
    }

    mutating func add(bytes: UnsafeRawBufferPointer) {
        var hash = self.hash
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        self.hash = hash
    }
}

/// Whether `a` comes before `b` in the order of their UTF-8 bytes (the
/// order of the keys in a scene file and in its checksum).
///
/// `memcmp` on the bytes, when both strings have them contiguous, instead
/// of `a.utf8.lexicographicallyPrecedes(b.utf8)` alone: measured
/// 2026-11-29, `scenes-lab bench codec --repetitions 4000` (keys `keyN`;
/// release; two series, in turns with a build without it, medians of 5
/// and 9 invocations), decoding is 0.7-0.9 µs (4-4.5%) faster at 100
/// keys, 7-14 µs (3.5-7%) at 1000, 95-135 µs (4.5-6.5%) at 10 000 (with
/// `--ints`: 0.6-0.8 µs, 9-12 µs, 132-135 µs; 4-10%); encoding 0.5-0.6 µs
/// (4-5%) at 100 keys, 6 µs (6%) at 1000 with ints, otherwise in the noise.
package func utf8Precedes(_ a: String, _ b: String) -> Bool {
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
