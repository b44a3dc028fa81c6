import Foundation

/// Where one store's readings and saves left its scene's log
/// (``position``): the next reading takes only what another process
/// appended after it (``SceneStorage/readLog(_:after:)``, ``records(in:)``),
/// and a store told of its own append reads nothing (``ownAppend``). Part
/// of ``StoreState``, beside the version memory holds.
package struct SceneFileReader: Sendable {
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

    package init() {}

    /// A document was read whole: its log ends at `end` (`nil`: it has
    /// no log, or none that ended whole).
    package mutating func read(to end: LogPosition?) {
        position = end
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

    /// The records in `tail`, the bytes a storage read after `position`,
    /// when they are whole, go on from it one generation at a time and
    /// end the document; and where the last one ends in `tail`. `nil` for
    /// anything else (a torn tail, a gap), which a full reading judges.
    package static func records(in tail: Data, after position: LogPosition) -> (records: [SceneFileRecord], end: Int)? {
        guard let (records, end) = SceneFileParser.logContinuation(tail, from: 0, first: position.first) else { return nil }
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
}
