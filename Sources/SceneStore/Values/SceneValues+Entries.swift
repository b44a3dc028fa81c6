import Foundation

/// How ``SceneValues`` lays its entries out in bytes, finds them and
/// reclaims the ones no longer used.
extension SceneValues {
    /// Where `key` is, or where it would go.
    func search(_ key: String) -> (found: Bool, index: Int) {
        var key = key
        key.makeContiguousUTF8()  // what a native string already is
        let ascii = key.utf8.withContiguousStorageIfAvailable { Self.isASCII($0) ? search($0) : nil } ?? nil
        if let ascii { return ascii }
        return key._nfcCodeUnits.withUnsafeBufferPointer { search($0) }
    }

    /// Where the key whose normalized bytes are `probe` is, or would go.
    func search(_ probe: UnsafeBufferPointer<UInt8>) -> (found: Bool, index: Int) {
        guard let last = starts.last else { return (false, 0) }
        // Keys set in order (a file read whole, a scene built up) go last.
        let order = compare(probe, with: last)
        if order > 0 { return (false, starts.count) }
        if order == 0 { return (true, starts.count - 1) }
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high) / 2
            let order = compare(probe, with: starts[middle])
            if order == 0 { return (true, middle) }
            if order > 0 { low = middle + 1 } else { high = middle }
        }
        return (false, low)
    }

    /// How normalized key bytes `probe` order against the key of the entry
    /// at `start`. Keys are ordered by the bytes of their NFC form: a total
    /// order in which canonically equivalent spellings are equal, as they
    /// are for `String`'s `==` (whose `<` is not total: "e\u{301}" and
    /// "\u{E9}:" are unequal and neither comes first). An ASCII key is its
    /// own NFC form; another is normalized by the standard library's own
    /// tables (`_nfcCodeUnits`), the ones `==` uses.
    func compare(_ probe: UnsafeBufferPointer<UInt8>, with start: Int) -> Int {
        let range = keyBytes(at: start)
        return bytes.withUnsafeBufferPointer { all in
            let stored = UnsafeBufferPointer(rebasing: all[range])
            if Self.isASCII(stored) { return Self.compare(probe, stored) }
            return String(decoding: stored, as: UTF8.self)._nfcCodeUnits.withUnsafeBufferPointer { Self.compare(probe, $0) }
        }
    }

    /// Byte order, a prefix first.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = Swift.min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in buffer { any |= byte }
        return any < 0x80
    }

    /// The range of ``bytes`` holding the key of the entry at `start`.
    func keyBytes(at start: Int) -> Range<Int> {
        var cursor = start
        let length = readLength(&cursor)
        return cursor..<(cursor + length)
    }

    func key(at start: Int) -> String {
        let range = keyBytes(at: start)
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    func value(at start: Int) -> SceneValue {
        var cursor = keyBytes(at: start).upperBound
        return readValue(&cursor)
    }

    /// The value whose tag is at `cursor`, which moves past its payload.
    func readValue(_ cursor: inout Int) -> SceneValue {
        let tag = Tag(rawValue: bytes[cursor]) ?? .object
        cursor += 1
        switch tag {
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int: return .int(Int(bitPattern: UInt(readWord(&cursor))))
        case .double: return .double(Double(bitPattern: readWord(&cursor)))
        case .string, .data:
            let length = readLength(&cursor)
            let range = cursor..<(cursor + length)
            cursor += length
            return bytes.withUnsafeBufferPointer { all in
                let payload = UnsafeBufferPointer(rebasing: all[range])
                return tag == .string ? .string(String(decoding: payload, as: UTF8.self)) : .data(Data(payload))
            }
        case .object:
            return objects[readLength(&cursor)]
        }
    }

    /// The end of the entry at `start`.
    func end(of start: Int) -> (end: Int, object: Bool) {
        var cursor = keyBytes(at: start).upperBound
        let tag = Tag(rawValue: bytes[cursor]) ?? .object
        cursor += 1
        switch tag {
        case .false, .true: break
        case .int, .double: cursor += 8
        case .string, .data:
            let length = readLength(&cursor)
            cursor += length
        case .object: _ = readLength(&cursor)
        }
        return (cursor, tag == .object)
    }

    /// Appends an entry.
    /// - Returns: where it starts.
    mutating func append(key: String, value: SceneValue) -> Int {
        reserve(key.utf8.count + 16 + Self.inlineLimit)
        let start = bytes.count
        appendLength(key.utf8.count)
        bytes.append(contentsOf: key.utf8)
        append(value)
        return start
    }

    mutating func append(_ value: SceneValue) {
        switch value {
        case .bool(let bool):
            bytes.append(bool ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let int):
            bytes.append(Tag.int.rawValue)
            appendWord(UInt64(UInt(bitPattern: int)))
        case .double(let double):
            bytes.append(Tag.double.rawValue)
            appendWord(double.bitPattern)
        case .string(let string) where string.utf8.count <= Self.inlineLimit:
            bytes.append(Tag.string.rawValue)
            appendLength(string.utf8.count)
            bytes.append(contentsOf: string.utf8)
        case .data(let data) where data.count <= Self.inlineLimit:
            bytes.append(Tag.data.rawValue)
            appendLength(data.count)
            bytes.append(contentsOf: data)
        case .string, .url, .data:
            bytes.append(Tag.object.rawValue)
            appendLength(objects.count)
            objects.append(value)
        }
    }

    /// Room for `more` bytes of entries: a full array grows by an eighth
    /// (not the double an append would make it), so that a scene that
    /// changed holds little more than it did.
    mutating func reserve(_ more: Int) {
        let needed = bytes.count + more
        if needed > bytes.capacity { bytes.reserveCapacity(Swift.max(needed, bytes.count + bytes.count / 8)) }
    }

    /// The entry at `start` is no longer used; the entries are copied
    /// together once a quarter of the bytes (or half the objects) are
    /// unused.
    mutating func retire(at start: Int) {
        let (end, object) = end(of: start)
        deadBytes += end - start
        if object { deadObjects += 1 }
        if deadBytes > 256 && deadBytes * 4 > bytes.count || deadObjects > 16 && deadObjects * 2 > objects.count {
            compact()
        }
    }

    /// Copies the entries in use together, in order: their bytes as they
    /// are, but for a value kept whole, which gets its new index.
    mutating func compact() {
        var copy = SceneValues()
        copy.bytes.reserveCapacity(bytes.count - deadBytes)
        copy.starts.reserveCapacity(starts.count)
        copy.objects.reserveCapacity(objects.count - deadObjects)
        for start in starts {
            let (end, object) = end(of: start)
            copy.starts.append(copy.bytes.count)
            if object {
                let range = keyBytes(at: start)
                copy.appendLength(range.count)
                copy.bytes.append(contentsOf: bytes[range])
                var cursor = range.upperBound
                copy.append(readValue(&cursor))
            } else {
                copy.bytes.append(contentsOf: bytes[start..<end])
            }
        }
        self = copy
    }

    // MARK: Numbers

    mutating func appendLength(_ value: Int) {
        var rest = UInt(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    func readLength(_ cursor: inout Int) -> Int {
        var value: UInt = 0
        var shift: UInt = 0
        while true {
            let byte = bytes[cursor]
            cursor += 1
            value |= UInt(byte & 0x7F) << shift
            if byte < 0x80 { return Int(value) }
            shift += 7
        }
    }

    mutating func appendWord(_ word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
    }

    func readWord(_ cursor: inout Int) -> UInt64 {
        let at = cursor
        cursor += 8
        return bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
    }
}
