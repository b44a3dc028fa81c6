import Foundation

/// Decodes one scene's documents as they come, reading each over the one
/// before (``SceneFileBaseline``): another process's save of a 100-key
/// scene that changed one value is parsed for that value only. The result
/// is always the one a full ``SceneFile/decode(_:expectedKeys:)`` gives.
///
/// It keeps the last document it decoded, up to
/// ``StoredDocument/wholeReadBytes``: about twice the file's size in memory,
/// and only once asked to (a store keeps one from the first change another
/// process made, not from opening).
package struct SceneFileReader: Sendable {
    private var baseline: SceneFileBaseline?
    /// The last log read whole to its end: its bytes, where its last
    /// record ends (and whether it has none), and what it holds.
    private var log: (document: Data, end: Int, first: Bool, file: SceneFile)?
    /// Where the last log read ended, whatever its size; `nil` after
    /// anything else (a version 1 file, a torn tail, damage).
    package private(set) var position: LogPosition?
    /// Where the log ends once the record this store is appending now is
    /// written (``appending(_:generation:over:)``): the watcher tells of
    /// that record before the save has ended, and a store finding the log
    /// ending there (``SceneStorage/logEnds(_:at:)``) knows it is its own
    /// and reads nothing.
    package private(set) var ownAppend: LogPosition?
    /// How many readings took only a log's new records from the storage
    /// (``advance(over:to:)``).
    package private(set) var recordReads = 0
    /// How many values the last successful decode parsed, when it read
    /// over a baseline (the others came from it, or it read a log's new
    /// records only: 0); `nil`: it read them all.
    private(set) var parsedOverBaseline: Int?

    package init() {}

    /// - Parameter keep: whether `data` becomes the next document's baseline.
    package mutating func decode(_ data: Data, expectedKeys: Int, keep: Bool) -> Result<SceneFile, SceneFile.Problem> {
        let keep = keep && data.count <= StoredDocument.wholeReadBytes
        if keep, let file = continuing(data) {
            parsedOverBaseline = 0
            return .success(file)
        }
        switch SceneFile.decode(data, expectedKeys: expectedKeys, over: baseline, recording: keep) {
        case .success(let read):
            parsedOverBaseline = read.parsedOverBaseline
            position = read.logEnd.map {
                LogPosition(data, offset: $0.offset, first: $0.first, version: read.file.version)
            }
            if keep {
                baseline = read.entries.map { SceneFileBaseline(document: data, entries: $0, file: read.snapshot) }
                log = read.logEnd.map { (data, $0.offset, $0.first, read.file) }
            }
            return .success(read.file)
        case .failure(let problem):
            position = nil
            return .failure(problem)
        }
    }

    /// The log went on with `records`, read from ``position`` by the
    /// storage, the last of them ending `end` bytes after it.
    package mutating func advance(over records: [SceneFileRecord], to end: Int) {
        guard var position, let last = records.last else { return }
        position.offset += end
        position.first = false
        position.version.generation = last.generation
        self.position = position
        recordReads += 1
    }

    /// This store appends a record of `generation`, `count` bytes (the
    /// line, without a separator), over `version`: where the log will end
    /// (``ownAppend``), when the last reading ended at that version.
    /// - Returns: that reading's end, where the record goes; `nil` when
    ///   the last reading ended at another version.
    @discardableResult
    package mutating func appending(_ count: Int, generation: UInt64, over version: DiskVersion) -> LogPosition? {
        ownAppend = nil
        guard let position, position.version == version else { return nil }
        var next = position
        // The record goes after the log's last newline, a comma first
        // unless it is the first (``LogAppend``); the log's end follows it.
        next.offset += 1 + (next.first ? 0 : 1) + count
        next.first = false
        next.version.generation = generation
        ownAppend = next
        return position
    }

    /// The append of ``appending(_:generation:over:)`` ended: when it was
    /// written, the reading goes on from after it (a later reading reads
    /// only what others appended after this store's record).
    package mutating func appendEnded(written: Bool) {
        if written, let ownAppend, let position, position.offset < ownAppend.offset,
           position.version.incarnation == ownAppend.version.incarnation,
           position.version.generation + 1 == ownAppend.version.generation {
            self.position = ownAppend
        }
        ownAppend = nil
    }

    /// A save of this store ended: it wrote the whole file, whose log ends
    /// at `position` (`nil`: not a log), or else it appended the record
    /// of ``appending(_:generation:over:)``. A later reading goes on from
    /// there.
    package mutating func saved(wholeFileAt position: LogPosition?) {
        if let position {
            self.position = position
            ownAppend = nil
        } else {
            appendEnded(written: true)
        }
    }

    /// The records in `tail`, the bytes a storage read after ``position``,
    /// when they are whole, go on from it one generation at a time and
    /// end the document; and where the last one ends in `tail`. `nil` for
    /// anything else (a torn tail, a gap), which a full reading judges.
    package func records(in tail: Data) -> (records: [SceneFileRecord], end: Int)? {
        guard let position, let (records, end) = SceneFileParser.logContinuation(tail, from: 0, first: position.first)
        else { return nil }
        var generation = position.version.generation
        for record in records {
            guard record.generation == generation + 1 else { return nil }
            generation = record.generation
        }
        return (records, end)
    }

    /// The file no longer goes on from ``position`` (written whole since,
    /// or gone): the next reading is whole, and sets it again.
    package mutating func forgetPosition() {
        position = nil
    }

    /// `data` read as the log read last with records appended: its bytes
    /// up to where that log's last record ended are the same, and whole
    /// records and the document's end follow. Only those records are
    /// parsed, and applied to what that log held; the result is the one a
    /// full reading gives (the same bytes parse the same way). `nil` for
    /// anything else, which a full reading judges.
    private mutating func continuing(_ data: Data) -> SceneFile? {
        guard let log, data.count > log.end else { return nil }
        let same = data.withUnsafeBytes { new in
            log.document.withUnsafeBytes { old in
                guard let new = new.baseAddress, let old = old.baseAddress else { return false }
                return memcmp(new, old, log.end) == 0
            }
        }
        guard same, let (records, end) = SceneFileParser.logContinuation(data, from: log.end, first: log.first) else { return nil }
        var file = log.file
        guard file.apply(records) == nil else { return nil }
        self.log = (data, end, log.first && records.isEmpty, file)
        position = LogPosition(data, offset: end, first: log.first && records.isEmpty, version: file.version)
        return file
    }
}
