import Foundation

extension SceneFile {
    /// The file's bytes: header fields first, in a fixed order, then one
    /// value per line, keys sorted by their UTF-8 bytes. Written by hand rather than through
    /// `JSONEncoder`: the output is the same JSON a person reads, produced
    /// several times faster (see `scenes-lab bench commit`), and the header can
    /// be read back without parsing the values (``peekVersion(_:)``).
    package func encoded(_ layout: SceneFile.Layout = .document) -> Data {
        var encoder = SceneFileEncoder(layout: layout)
        return encoder.encode(self)
    }
}

/// Writes one store's scene files: a save over the stored version is a
/// record (``record(_:over:edited:)``), the edited keys only, appended to
/// the scene's log; a whole file (the first save, a compaction) is
/// encoded afresh. Between whole files the encoder keeps only the size and
/// count of the scene's entries, for the bound the log may grow to: an
/// open store should not hold its scene a third time, encoded.
package struct SceneFileEncoder {
    package let layout: SceneFile.Layout
    /// The bytes of the entries' JSON and their count, for the size of
    /// the next whole file.
    private var entryBytes = 0
    private var entryCount = 0
    /// The version `entryBytes` and `entryCount` measure, once stored.
    private var version: DiskVersion?

    package init(layout: SceneFile.Layout = .log) {
        self.layout = layout
    }

    /// The bytes of `file`, whole.
    package mutating func encode(_ file: SceneFile) -> Data {
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
        entryBytes = values.reduce(0) { $0 + JSONText.memberByteCount($1.key, $1.value) }
        entryCount = values.count
    }

    /// How large the file may grow (see ``record(_:over:edited:)``).
    private var sizeLimit: Int {
        SceneFile.compactionFactor * (entryBytes + 6 * entryCount + 512) + SceneFile.compactionSlack
    }

    /// Confirms that the file last encoded or recorded is stored as
    /// `version`, so the next record over it goes on measuring from there.
    /// Until then (a failed write) the next record measures its base
    /// again: another writer may take the version number this one never got.
    package mutating func written(_ version: DiskVersion) {
        self.version = version
    }

    /// The file's bytes; its entries measured for ``sizeLimit``.
    private mutating func bytes(of file: SceneFile) -> Data {
        var checksum = Checksum()
        var entries = JSONText(capacity: file.values.count * 48 + 16)
        for (index, (key, value)) in file.values.inUTF8Order.enumerated() {
            checksum.add(key: key, value: value)
            entries.raw(index == 0 ? "\n    " as StaticString : ",\n    ")
            entries.member(key, value)
        }
        entryCount = file.values.count
        // The members alone, as measure(_:) counts them: without the separators.
        entryBytes = entries.bytes.count - max(0, 6 * entryCount - 1)
        var out = JSONText(capacity: entries.bytes.count + 512)
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
        out.bytes += entries.bytes
        if entryCount > 0 { out.raw("\n  ") }
        switch layout {
        case .document: out.raw("}\n}\n")
        case .log: out.raw("},\n  \"log\": [\n]}\n")
        }
        return out.bytes.withUnsafeBytes { Data($0) }
    }
}
