import Foundation

extension SceneFile {
    /// The file's bytes, whole: the header and the snapshot, keys in the
    /// order of their UTF-8 bytes.
    package func encoded() -> Data {
        var encoder = SceneFileEncoder()
        return encoder.encode(self)
    }
}

/// Writes one store's scene files: a save over the stored version is a
/// record (``record(_:over:edited:)``), the edited keys only, appended to
/// the scene's log; a whole file (the first save, a compaction) is
/// encoded afresh. Between whole files the encoder keeps only the size of
/// the scene's entries, for the bound the log may grow to: an open store
/// should not hold its scene a third time, encoded.
package struct SceneFileEncoder {
    /// The bytes of the entries, for the size of the next whole file.
    private var entryBytes = 0
    /// The version `entryBytes` measures, once stored.
    private var version: DiskVersion?

    package init() {}

    /// The bytes of `file`, whole.
    package mutating func encode(_ file: SceneFile) -> Data {
        version = nil
        entryBytes = file.values.reduce(0) { $0 + SceneFileFrames.entryByteCount($1.key, $1.value) }
        var out = FrameWriter(capacity: SceneFileFrames.headerCount + SceneFileFrames.overhead + 64 + entryBytes)
        out.bytes += SceneFileFrames.magic
        out.word(UInt32(SceneFile.currentVersion))
        out.beginFrame(.snapshot)
        out.word(file.generation)
        out.string(file.incarnation)
        out.writer(file.writer)
        out.string(file.scene)
        out.count(file.values.count)
        for (key, value) in file.values.inUTF8Order { out.entry(key, value) }
        out.endFrame()
        return out.bytes.withUnsafeBytes { Data($0) }
    }

    /// The record of `file` over `base`: the new generation, the writer
    /// and the edited keys, in a frame.
    /// - Returns: the frame, and the size the scene's file may reach with
    ///   it appended before it is written whole again instead (about twice
    ///   the whole file's size, see ``SceneFile/compactionSlack``).
    package mutating func record(
        _ file: SceneFile, over base: SceneFile, edited: some Collection<String>
    ) -> (frame: [UInt8], sizeLimit: Int) {
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
        return frame(of: SceneFileRecord(generation: file.generation, writer: file.writer, set: set, removed: removed), over: base)
    }

    /// The frame of `record`, a save over `base`, without the saved
    /// scene's values at hand: the entries' size follows the record, from
    /// `base`'s when it does not hold it already.
    /// - Returns: as ``record(_:over:edited:)``.
    package mutating func frame(of record: SceneFileRecord, over base: SceneFile) -> (frame: [UInt8], sizeLimit: Int) {
        if version != base.version {
            entryBytes = base.values.reduce(0) { $0 + SceneFileFrames.entryByteCount($1.key, $1.value) }
        }
        for key in record.removed {
            guard let old = base.values.entry(forKey: key) else { continue }
            entryBytes -= SceneFileFrames.entryByteCount(old.key, old.value)
        }
        for (key, value) in record.set {
            if let old = base.values.entry(forKey: key) { entryBytes -= SceneFileFrames.entryByteCount(old.key, old.value) }
            entryBytes += SceneFileFrames.entryByteCount(key, value)
        }
        version = nil
        return (record.frame(), SceneFile.compactionFactor * (entryBytes + 512) + SceneFile.compactionSlack)
    }

    /// Confirms that the file last encoded or recorded is stored as
    /// `version`, so the next record over it goes on measuring from there.
    /// Until then (a failed write) the next record measures its base
    /// again: another writer may take the version number this one never got.
    package mutating func written(_ version: DiskVersion) {
        self.version = version
    }
}
