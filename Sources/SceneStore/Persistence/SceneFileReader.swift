import Foundation

/// Where one store's readings and saves left its scene's log
/// (``position``): the next reading takes only what another process
/// appended after it (``SceneStorage/read(_:after:)``, ``records(in:after:)``),
/// and a store told of its own append reads nothing (``ownAppend``). Part
/// of ``StoreState``, beside the version memory holds.
package struct SceneFileReader: Sendable {
    /// Where the last log read ended, whatever its size; `nil` after
    /// anything else (a torn tail, damage).
    package private(set) var position: LogPosition?
    /// Where the log ends once the record this store is appending now is
    /// written (``appending(ending:)``): the watcher tells of
    /// that record before the save has ended, and a store finding the log
    /// ending there (``SceneStorage/logEnds(_:at:)``) knows it is its own
    /// and reads nothing.
    package private(set) var ownAppend: LogPosition?
    /// How many readings took only a log's new records from the storage
    /// (``advance(to:)``).
    package private(set) var recordReads = 0

    package init() {}

    /// A document was read whole: its log ends at `end` (`nil`: it has
    /// no log, or none that ended whole).
    package mutating func read(to end: LogPosition?) {
        position = end
    }

    /// The log went on, read from ``position`` by the storage, up to `end`.
    package mutating func advance(to end: LogPosition) {
        if position != end { recordReads += 1 }
        position = end
    }

    /// This store is about to append a record: the log will end at `end`
    /// (``LogPosition/appending(_:generation:)``; `nil`: not known, the
    /// last reading ended at another version).
    package mutating func appending(ending end: LogPosition?) {
        ownAppend = end
    }

    /// The append of ``appending(ending:)`` ended: when it was
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
    /// of ``appending(ending:)``. A later reading goes on from
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
        guard let (records, end) = SceneFileRecord.records(in: tail) else { return nil }
        var generation = position.version.generation
        for record in records {
            guard record.generation == generation + 1 else { return nil }
            generation = record.generation
        }
        return (records, end)
    }
}
