import Foundation

/// A scene's values by key, as a dictionary of them behaves, kept compact:
/// each entry's key and value as bytes, one after another in one array,
/// found through an array of where each starts, in key order.
///
/// A `[String: SceneValue]` of 100 short strings takes about 10 KB (256
/// buckets of 40 bytes: a dictionary grows past three quarters full), and
/// one of 100 000 takes 5 MB of buckets and an object per string longer
/// than 15 bytes, about 2.7 times the scene's file. Here an entry takes its
/// key's and value's bytes, three or four bytes more and a start: about
/// the size of the file's values.
///
/// * Keys are equal as Swift's strings are (canonical equivalence:
///   `"\u{E9}"` and `"e\u{301}"` are one key, kept in the spelling first
///   set), so a lookup finds what a dictionary would. They are ordered by
///   the bytes of their NFC form; an ASCII key, nearly every one, by its
///   own bytes.
/// * Iteration is in that order: for ASCII keys, the order of their UTF-8
///   bytes, which is the file's.
/// * A URL, and a string or data longer than ``inlineLimit`` bytes, is
///   kept as the value itself (in ``objects``): reading it costs no copy
///   of a large value, and a URL comes back the instance that was set.
/// * A set or remove leaves the old entry's bytes unused until they are a
///   quarter of the bytes, when the entries are copied together again.
package struct SceneValues: Sendable {
    /// Each entry: its key's UTF-8 length (LEB128) and bytes, the value's
    /// ``Tag``, and its payload.
    private var bytes: [UInt8] = []
    /// Where each entry starts in ``bytes``, in key order.
    private var starts: [Int] = []
    /// Values kept whole; an entry of tag ``Tag/object`` holds its index.
    private var objects: [SceneValue] = []
    /// Bytes of ``bytes``, and slots of ``objects``, no entry uses.
    private var deadBytes = 0
    private var deadObjects = 0

    /// Strings and data up to this many bytes are kept as bytes.
    static let inlineLimit = 64

    private enum Tag: UInt8 {
        case `false`, `true`, int, double, string, data, object
    }

    package init() {}

    /// - Parameter bytes: room for this many bytes of entries: for a
    ///   file read whole, its size (more than its entries take as bytes),
    ///   given back by ``trim()`` once it is read.
    package init(minimumCapacity: Int, bytes: Int = 0) {
        starts.reserveCapacity(minimumCapacity)
        self.bytes.reserveCapacity(bytes)
    }

    package init(_ dictionary: [String: SceneValue]) {
        self.init(minimumCapacity: dictionary.count)
        for (key, value) in dictionary { updateValue(value, forKey: key) }
    }

    package init(_ pairs: some Sequence<(String, SceneValue)>) {
        self.init()
        for (key, value) in pairs { updateValue(value, forKey: key) }
    }

    package var count: Int { starts.count }
    package var isEmpty: Bool { starts.isEmpty }

    /// The bytes the entries take, with those no longer used (and a
    /// word per value kept whole): what compaction bounds.
    package var storedBytes: Int { bytes.count + objects.count * MemoryLayout<SceneValue>.stride }

    /// The keys, in order.
    package var keys: [String] { starts.map { key(at: $0) } }

    /// The same values as a dictionary.
    package var dictionary: [String: SceneValue] {
        var dictionary = [String: SceneValue](minimumCapacity: count)
        for (key, value) in self { dictionary[key] = value }
        return dictionary
    }

    package subscript(key: String) -> SceneValue? {
        get {
            let (found, index) = search(key)
            return found ? value(at: starts[index]) : nil
        }
        set {
            if let newValue {
                put(newValue, forKey: key)
            } else if case (true, let index) = search(key) {
                remove(at: index)
            }
        }
    }

    /// The entry of `key` as it is kept: its key in the spelling first set.
    package func entry(forKey key: String) -> (key: String, value: SceneValue)? {
        let (found, index) = search(key)
        guard found else { return nil }
        return (self.key(at: starts[index]), value(at: starts[index]))
    }

    /// Sets `value` for `key`, keeping the key's spelling when it is there.
    /// - Returns: the value it replaced.
    @discardableResult
    package mutating func updateValue(_ value: SceneValue, forKey key: String) -> SceneValue? {
        let (found, index) = search(key)
        let previous = found ? self.value(at: starts[index]) : nil
        put(value, forKey: key, at: (found, index))
        return previous
    }

    /// Sets `value` for `key`, where ``search(_:)`` found it or its place.
    private mutating func put(_ value: SceneValue, forKey key: String, at place: (found: Bool, index: Int)? = nil) {
        let (found, index) = place ?? search(key)
        guard found else {
            let start = append(key: key, value: value)
            starts.insert(start, at: index)
            return
        }
        let old = starts[index]
        let keyRange = keyBytes(at: old)
        reserve(keyRange.count + 16 + Self.inlineLimit)
        let start = bytes.count
        appendLength(keyRange.count)
        // Byte by byte: a slice of the array would share its buffer, and
        // appending to it would copy the whole array.
        for index in keyRange { bytes.append(bytes[index]) }
        append(value)
        starts[index] = start
        retire(at: old)
    }

    /// - Returns: the value removed.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> SceneValue? {
        let (found, index) = search(key)
        guard found else { return nil }
        let previous = value(at: starts[index])
        remove(at: index)
        return previous
    }

    private mutating func remove(at index: Int) {
        let old = starts[index]
        starts.remove(at: index)
        retire(at: old)
    }

    /// Gives back the capacity beyond what the entries use: for a scene
    /// read whole, which is kept as it is until it changes.
    package mutating func trim() {
        if deadBytes > 0 || deadObjects > 0 {
            compact()
        } else {
            if bytes.capacity > bytes.count + bytes.count / 8 { bytes = Self.copy(bytes) }
            if starts.capacity > starts.count + starts.count / 8 { starts = Self.copy(starts) }
        }
    }

    /// `array` in a buffer of its size (`Array(array[...])` would keep
    /// the same buffer).
    private static func copy<Element>(_ array: [Element]) -> [Element] {
        var copy: [Element] = []
        copy.reserveCapacity(array.count)
        copy.append(contentsOf: array)
        return copy
    }

    // MARK: Entries

    /// Where `key` is, or where it would go.
    private func search(_ key: String) -> (found: Bool, index: Int) {
        var key = key
        key.makeContiguousUTF8()  // what a native string already is
        let ascii = key.utf8.withContiguousStorageIfAvailable { Self.isASCII($0) ? search($0) : nil } ?? nil
        if let ascii { return ascii }
        return key._nfcCodeUnits.withUnsafeBufferPointer { search($0) }
    }

    /// Where the key whose normalized bytes are `probe` is, or would go.
    private func search(_ probe: UnsafeBufferPointer<UInt8>) -> (found: Bool, index: Int) {
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
    private func compare(_ probe: UnsafeBufferPointer<UInt8>, with start: Int) -> Int {
        let range = keyBytes(at: start)
        return bytes.withUnsafeBufferPointer { all in
            let stored = UnsafeBufferPointer(rebasing: all[range])
            if Self.isASCII(stored) { return Self.compare(probe, stored) }
            return String(decoding: stored, as: UTF8.self)._nfcCodeUnits.withUnsafeBufferPointer { Self.compare(probe, $0) }
        }
    }

    /// Byte order, a prefix first.
    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = Swift.min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    private static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in buffer { any |= byte }
        return any < 0x80
    }

    /// The range of ``bytes`` holding the key of the entry at `start`.
    private func keyBytes(at start: Int) -> Range<Int> {
        var cursor = start
        let length = readLength(&cursor)
        return cursor..<(cursor + length)
    }

    private func key(at start: Int) -> String {
        let range = keyBytes(at: start)
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    private func value(at start: Int) -> SceneValue {
        var cursor = keyBytes(at: start).upperBound
        return readValue(&cursor)
    }

    /// The value whose tag is at `cursor`, which moves past its payload.
    private func readValue(_ cursor: inout Int) -> SceneValue {
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
    private func end(of start: Int) -> (end: Int, object: Bool) {
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
    private mutating func append(key: String, value: SceneValue) -> Int {
        reserve(key.utf8.count + 16 + Self.inlineLimit)
        let start = bytes.count
        appendLength(key.utf8.count)
        bytes.append(contentsOf: key.utf8)
        append(value)
        return start
    }

    private mutating func append(_ value: SceneValue) {
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
    private mutating func reserve(_ more: Int) {
        let needed = bytes.count + more
        if needed > bytes.capacity { bytes.reserveCapacity(Swift.max(needed, bytes.count + bytes.count / 8)) }
    }

    /// The entry at `start` is no longer used; the entries are copied
    /// together once a quarter of the bytes (or half the objects) are
    /// unused.
    private mutating func retire(at start: Int) {
        let (end, object) = end(of: start)
        deadBytes += end - start
        if object { deadObjects += 1 }
        if deadBytes > 256 && deadBytes * 4 > bytes.count || deadObjects > 16 && deadObjects * 2 > objects.count {
            compact()
        }
    }

    /// Copies the entries in use together, in order: their bytes as they
    /// are, but for a value kept whole, which gets its new index.
    private mutating func compact() {
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

    private mutating func appendLength(_ value: Int) {
        var rest = UInt(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private func readLength(_ cursor: inout Int) -> Int {
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

    private mutating func appendWord(_ word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private func readWord(_ cursor: inout Int) -> UInt64 {
        let at = cursor
        cursor += 8
        return bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
    }
}

extension SceneValues: Sequence {
    package struct Iterator: IteratorProtocol {
        fileprivate let values: SceneValues
        fileprivate var index = 0

        package mutating func next() -> (key: String, value: SceneValue)? {
            guard index < values.starts.count else { return nil }
            let start = values.starts[index]
            index += 1
            return (values.key(at: start), values.value(at: start))
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(values: self)
    }

    package var underestimatedCount: Int { count }
}

extension SceneValues: Equatable {
    /// The same keys (as strings compare) with equal values.
    package static func == (lhs: SceneValues, rhs: SceneValues) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.bytes == rhs.bytes && lhs.starts == rhs.starts && lhs.objects == rhs.objects { return true }
        return zip(lhs, rhs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension SceneValues: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, SceneValue)...) {
        self.init(elements)
    }
}

extension SceneValues: CustomStringConvertible {
    package var description: String { dictionary.description }
}
