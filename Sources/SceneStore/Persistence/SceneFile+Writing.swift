import Foundation

extension SceneFile {
    /// The file's bytes: header fields first, in a fixed order, then one
    /// value per line, keys sorted by their UTF-8 bytes. Written by hand rather than through
    /// `JSONEncoder`: the output is the same JSON a person reads, produced
    /// several times faster (see `scenes-lab bench commit`), and the header can
    /// be read back without parsing the values (``peekVersion(_:)``).
    package func encoded(_ layout: SceneFile.Layout = .document) -> Data {
        var encoder = SceneFileEncoder(layout: layout)
        return encoder.encode(self, over: nil, edited: [])
    }
}

/// Writes scene files for one store, keeping each value's JSON text and
/// the sorted key order from one save to the next: a save over the file
/// the encoder wrote last encodes only the keys it changed and sorts
/// nothing, so its cost is copying bytes and one checksum pass rather than
/// escaping and sorting the whole scene again. The bytes are the same as a
/// fresh encoding's (``SceneFile/encoded(_:)``).
///
/// In the ``SceneFile/Layout/log`` layout a save over the stored version
/// is a record (``record(_:over:edited:)``): the edited keys only, appended
/// to the file. There the encoder keeps no entries, only their count and
/// size (for the bound the file may grow to): a whole file is written
/// rarely (the first save, a compaction), and an open store should not
/// hold its scene a third time, encoded.
package struct SceneFileEncoder {
    private struct Entry {
        let key: String
        let value: SceneValue
        /// `"key": {"type": "int", "value": 5}`
        let json: [UInt8]
    }

    package let layout: SceneFile.Layout
    /// Sorted by the keys' UTF-8 bytes; in the log layout, only while a
    /// whole file is encoded.
    private var entries: [Entry] = []
    /// The bytes of the entries' JSON and their count, for the size of
    /// the next whole file.
    private var entryBytes = 0
    private var entryCount = 0
    /// The file `entries` encode, once it is known to be stored.
    private var version: DiskVersion?

    package init(layout: SceneFile.Layout = .document) {
        self.layout = layout
    }

    /// The bytes of `file`, which is `base` with the values of `edited`
    /// changed. Reuses what was encoded for `base` when that is the file
    /// this encoder encoded last and ``written(_:)`` confirmed.
    package mutating func encode(_ file: SceneFile, over base: SceneFile?, edited: some Collection<String>) -> Data {
        let reused = layout == .document && base.map { version == $0.version && update(edited, to: file.values) } ?? false
        if !reused { rebuild(from: file.values) }
        version = nil
        return bytes(of: file)
    }

    /// The record of `file` over `base` (``SceneFile/Layout/log``): one
    /// line holding the new generation, the writer and the edited keys,
    /// with its checksum.
    /// - Returns: the line, and the size the scene's file may reach with
    ///   it appended before it is written whole again instead (about twice
    ///   the whole file's size, see ``SceneFile/compactionSlack``).
    package mutating func record(
        _ file: SceneFile, over base: SceneFile, edited: some Collection<String>
    ) -> (line: [UInt8], sizeLimit: Int) {
        var set: [(String, SceneValue)] = []
        var removed: [String] = []
        for key in edited {
            if let entry = file.values.entry(forKey: key) {
                set.append(entry)
            } else if let entry = base.values.entry(forKey: key) {
                removed.append(entry.key)  // in the spelling the entries have
            }
        }
        set.sort { utf8Precedes($0.0, $1.0) }
        removed.sort(by: utf8Precedes)
        return line(of: SceneFileRecord(generation: file.generation, writer: file.writer, set: set, removed: removed), over: base)
    }

    /// The line of `record`, a save over `base`, without the saved scene's
    /// values at hand (``SceneFile/Layout/log``): the entries follow the
    /// record, from `base`'s when they do not hold it already.
    /// - Returns: as ``record(_:over:edited:)``.
    package mutating func line(of record: SceneFileRecord, over base: SceneFile) -> (line: [UInt8], sizeLimit: Int) {
        if version != base.version { measure(base.values) }
        for key in record.removed {
            guard let old = base.values[key] else { continue }
            entryBytes -= JSONText.memberByteCount(key, old)
            entryCount -= 1
        }
        for (key, value) in record.set {
            if let old = base.values[key] {
                entryBytes -= JSONText.memberByteCount(key, old)
            } else {
                entryCount += 1
            }
            entryBytes += JSONText.memberByteCount(key, value)
        }
        version = nil
        return (record.line(), sizeLimit)
    }

    /// The size and count of `values`' entries, without keeping them.
    private mutating func measure(_ values: SceneValues) {
        entries = []
        entryBytes = values.reduce(0) { $0 + JSONText.memberByteCount($1.key, $1.value) }
        entryCount = values.count
    }

    /// Sets the entry of `key` (matched by its bytes) to `value`.
    private mutating func put(_ key: String, _ value: SceneValue) {
        let index = insertionIndex(of: key)
        let entry = Self.entry(key, value)
        entryBytes += entry.json.count
        if index < entries.count, entries[index].key.utf8.elementsEqual(key.utf8) {
            entryBytes -= entries[index].json.count
            entries[index] = entry
        } else {
            entries.insert(entry, at: index)
            entryCount += 1
        }
    }

    /// Removes the entry of `key` (matched by its bytes), if there is one.
    private mutating func remove(_ key: String) {
        let index = insertionIndex(of: key)
        if index < entries.count, entries[index].key.utf8.elementsEqual(key.utf8) {
            entryBytes -= entries[index].json.count
            entries.remove(at: index)
            entryCount -= 1
        }
    }

    /// How large the file may grow (see ``record(_:over:edited:)``).
    private var sizeLimit: Int {
        SceneFile.compactionFactor * (entryBytes + 6 * entryCount + 512) + SceneFile.compactionSlack
    }

    /// Confirms that the file last encoded is stored as `version`, so the
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
    private mutating func update(_ edited: some Collection<String>, to values: SceneValues) -> Bool {
        for key in edited {
            if let entry = values.entry(forKey: key) {
                put(entry.key, entry.value)
            } else {
                remove(key)
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

    private mutating func rebuild(from values: SceneValues) {
        entries = values.inUTF8Order.map { Self.entry($0.key, $0.value) }
        entryBytes = entries.reduce(0) { $0 + $1.json.count }
        entryCount = entries.count
    }

    private static func entry(_ key: String, _ value: SceneValue) -> Entry {
        var out = JSONText(capacity: key.utf8.count + 40)
        out.member(key, value)
        return Entry(key: key, value: value, json: out.bytes)
    }

    private mutating func bytes(of file: SceneFile) -> Data {
        var checksum = Checksum()
        for index in entries.indices {
            checksum.add(key: entries[index].key, value: entries[index].value)
        }
        var out = JSONText(capacity: entryBytes + 6 * entries.count + 512)
        out.raw("{\n  \"format\": ")
        out.string(SceneFile.magic)
        out.raw(",\n  \"version\": ")
        out.number(UInt64(layout.formatVersion))
        out.raw(",\n  \"scene\": ")
        out.string(file.scene)
        out.raw(",\n  \"generation\": ")
        out.number(file.generation)
        out.raw(",\n  \"incarnation\": ")
        out.string(file.incarnation)
        out.raw(",\n  \"writer\": ")
        out.writer(file.writer)
        out.raw(",\n  \"checksum\": ")
        out.string(checksum.text)
        out.raw(",\n  \"values\": {")
        for index in entries.indices {
            out.raw(index == 0 ? "\n    " as StaticString : ",\n    ")
            out.bytes.append(contentsOf: entries[index].json)
        }
        if !entries.isEmpty { out.raw("\n  ") }
        switch layout {
        case .document: out.raw("}\n}\n")
        case .log: out.raw("},\n  \"log\": [\n]}\n")
        }
        if layout == .log { entries = [] }  // see the type's comment
        return out.bytes.withUnsafeBytes { Data($0) }
    }
}
