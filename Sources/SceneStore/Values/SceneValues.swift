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
    var bytes: [UInt8] = []
    /// Where each entry starts in ``bytes``, in key order.
    var starts: [Int] = []
    /// Values kept whole; an entry of tag ``Tag/object`` holds its index.
    var objects: [SceneValue] = []
    /// Bytes of ``bytes``, and slots of ``objects``, no entry uses.
    var deadBytes = 0
    var deadObjects = 0

    /// Strings and data up to this many bytes are kept as bytes.
    static let inlineLimit = 64

    enum Tag: UInt8 {
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

    /// The entries in the order of their keys' UTF-8 bytes, the file's
    /// (and the checksum's): the order they are kept in when every key is
    /// ASCII, sorted otherwise.
    package var inUTF8Order: [(key: String, value: SceneValue)] {
        var pairs = Array(self)
        if !zip(pairs, pairs.dropFirst()).allSatisfy({ utf8Precedes($0.key, $1.key) }) {
            pairs.sort { utf8Precedes($0.key, $1.key) }
        }
        return pairs
    }

    /// The same values as a dictionary.
    package var dictionary: [String: SceneValue] {
        var dictionary = [String: SceneValue](minimumCapacity: count)
        for (key, value) in self { dictionary[key] = value }
        return dictionary
    }

    package subscript(key: String) -> SceneValue? {
        get { value(at: place(of: key)) }
        set { set(newValue, forKey: key, at: place(of: key)) }
    }

    /// Where `key` is kept, or would go: for a read and a write of one key
    /// with one search. Valid until the values change.
    package struct Place {
        fileprivate let found: Bool
        fileprivate let index: Int
    }

    package func place(of key: String) -> Place {
        let (found, index) = search(key)
        return Place(found: found, index: index)
    }

    package func value(at place: Place) -> SceneValue? {
        place.found ? value(at: starts[place.index]) : nil
    }

    /// Sets or (with `nil`) removes the value of `key`, found at `place`.
    package mutating func set(_ value: SceneValue?, forKey key: String, at place: Place) {
        if let value {
            put(value, forKey: key, at: place)
        } else if place.found {
            remove(at: place.index)
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
        let place = place(of: key)
        let previous = self.value(at: place)
        put(value, forKey: key, at: place)
        return previous
    }

    /// Sets `value` for `key`, where ``place(of:)`` found it or its place.
    private mutating func put(_ value: SceneValue, forKey key: String, at place: Place) {
        let (found, index) = (place.found, place.index)
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
