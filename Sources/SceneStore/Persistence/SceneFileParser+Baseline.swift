import Foundation

/// A document read before, kept to read the next version of the same
/// scene by difference: another process's save usually changes one value
/// of many, and the values it did not change are the same bytes in both
/// documents.
struct SceneFileBaseline: Sendable {
    /// One value of the document: where its member (`"key": {...}`) lies,
    /// and what it holds.
    struct Entry: Sendable {
        let range: Range<Int>
        let key: String
        let value: SceneValue
    }

    let document: Data
    /// In file order, which is checksum order: keys strictly increasing in
    /// their UTF-8 bytes.
    let entries: [Entry]
    /// The document as of its `values`: a log's records not applied.
    let file: SceneFile
}

extension SceneFileParser {
    /// The values, read over `baseline`: a member whose bytes are those of
    /// the baseline's next entry is that entry (JSON is self-delimiting, so
    /// the same bytes parse to the same key and value), taken without
    /// parsing; any other member is parsed. The values start as the
    /// baseline's and get the differences, so an unchanged key is neither
    /// hashed nor inserted.
    ///
    /// - Returns: what ``values()`` returns for the same bytes; `nil` (the
    ///   cursor left anywhere) when the keys are not in checksum order or
    ///   two spellings of one key meet, which the full reading handles.
    mutating func values(
        over baseline: SceneFileBaseline, previous: UnsafeBufferPointer<UInt8>
    ) throws(SceneFile.Problem) -> (SceneValues, String?, [SceneFileBaseline.Entry]?)? {
        let old = baseline.entries
        var values = baseline.file.values
        var checksum = Checksum()
        var entries: [SceneFileBaseline.Entry] = []
        if recording { entries.reserveCapacity(old.count) }
        var cursor = 0
        var members = 0
        var parsed = 0
        var last: String?
        if try opens(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}")) {
            repeat {
                skipWhitespace()
                let start = index
                let key: String
                let value: SceneValue
                var same = cursor < old.count && sameBytes(as: old[cursor].range, in: previous)
                if !same, cursor + 1 < old.count, sameBytes(as: old[cursor + 1].range, in: previous) {
                    // The baseline's next entry is gone (a removed key).
                    values.removeValue(forKey: old[cursor].key)
                    cursor += 1
                    same = true
                }
                if same {
                    (key, value) = (old[cursor].key, old[cursor].value)
                    index += old[cursor].range.count
                    cursor += 1
                } else {
                    parsed += 1
                    key = try string()
                    try expect(UInt8(ascii: ":"))
                    value = try self.value(forKey: key)
                    // Entries of the baseline before `key` are gone.
                    while cursor < old.count, utf8Precedes(old[cursor].key, key) {
                        values.removeValue(forKey: old[cursor].key)
                        cursor += 1
                    }
                    if cursor < old.count, old[cursor].key.utf8.elementsEqual(key.utf8) { cursor += 1 }
                    values[key] = value
                }
                guard last.map({ utf8Precedes($0, key) }) ?? true else { return nil }
                checksum.add(key: key, value: value)
                if recording { entries.append(.init(range: start..<index, key: key, value: value)) }
                last = key
                members += 1
            } while try !closes(UInt8(ascii: "}"), "object")
        }
        while cursor < old.count {
            values.removeValue(forKey: old[cursor].key)
            cursor += 1
        }
        // Fewer values than members: two spellings of one key (equal as
        // Strings) met in the dictionary. The full reading reports it.
        guard values.count == members else { return nil }
        parsedOverBaseline = parsed
        return (values, checksum.text, recording ? entries : nil)
    }

    /// Whether the bytes at the cursor start with `previous[range]`.
    private func sameBytes(as range: Range<Int>, in previous: UnsafeBufferPointer<UInt8>) -> Bool {
        guard index + range.count <= bytes.count, range.upperBound <= previous.count,
              let here = bytes.baseAddress, let there = previous.baseAddress else { return false }
        return memcmp(here + index, there + range.lowerBound, range.count) == 0
    }
}
