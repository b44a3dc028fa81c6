import Foundation

/// Where a reading of the scene's document was made.
struct ReadSite: Sendable, Equatable {
    /// Holding the scene's lock: nobody else can change the document.
    var holdingLock: Bool
    /// Opening the store: a file is taken as it is, without updates.
    var opening: Bool

    static let opening = ReadSite(holdingLock: false, opening: true)
    static let withoutLock = ReadSite(holdingLock: false, opening: false)
    static let holdingLock = ReadSite(holdingLock: true, opening: false)

    /// The same reading made again, holding the lock.
    var lockTaken: ReadSite { ReadSite(holdingLock: true, opening: opening) }
}

/// What the store makes of a reading: the one place where a missing, a
/// damaged or a newer document is given its meaning. The store carries out
/// the answer (``SceneStore/synchronize(_:in:)``) and reports back.
enum ReadVerdict: Sendable {
    /// Memory now reflects the document; `base` is the document to save
    /// over (`nil`: none).
    case settled(base: SceneFile?)
    /// Missing or damaged seen without the lock: it may be half-way
    /// through another process's quarantine or rewrite. Look again
    /// holding the lock.
    case lookHoldingLock
    /// Missing under the lock, after this store had the file: whether a
    /// tombstone is there tells another process's discard from a file
    /// that vanished (``StoreState/missing(tombstone:)``).
    case checkTombstone
    /// Damaged under the lock: move it to quarantine, then
    /// ``StoreState/quarantined(_:)``.
    case quarantine(SceneFile.Problem)
    /// A damaged document a read-only store leaves where it is; memory
    /// keeps what it had.
    case leaveDamaged(SceneFile.Problem)
    /// Written by a newer SceneStore: refused and left as it is.
    case refuse(version: Int)
}

extension StoreState {
    /// Where a reading at `site` may go on from: where the last one
    /// ended, over a document memory holds (``SceneStorage/read(_:after:)``);
    /// `nil` when opening, or when memory holds none (a reading of
    /// nothing after the position settles only what memory holds).
    func cursor(_ site: ReadSite) -> LogPosition? {
        site.opening || diskFile == nil ? nil : reader.position
    }

    /// Decides what `reading`, a whole document, made at `site` means,
    /// and applies what needs no I/O: a newer file is
    /// adopted, its differences enqueued as changes from the process that
    /// wrote it. The next reading goes on from `logEnd`, where the log
    /// read ends.
    mutating func read(
        _ reading: SceneReadResult, logEnd: LogPosition? = nil, at site: ReadSite, writable: Bool
    ) -> ReadVerdict {
        reader.read(to: logEnd)
        switch reading {
        case .file(let file):
            if site.opening {
                load(file)
            } else if disk.isOlder(than: file.version) {
                adopt(file, origin: .external(writerPID: file.writer.pid))
            }
            return .settled(base: file)
        case .newerVersion(let version):
            return .refuse(version: version)
        case .missing:
            // A store that never had the file has nothing to reconcile.
            guard disk.incarnation != nil else { return .settled(base: nil) }
            guard writable else { return .settled(base: nil) }  // takes no lock; keeps what it holds
            return site.holdingLock ? .checkTombstone : .lookHoldingLock
        case .damaged(let problem):
            guard writable else { return .leaveDamaged(problem) }
            return site.holdingLock ? .quarantine(problem) : .lookHoldingLock
        }
    }

    /// What a missing scene file turned out to be.
    enum MissingFile: Equatable {
        /// Another process discarded the scene: memory is emptied but for
        /// the edits not yet saved, which are saved as the new scene.
        case discarded
        /// The file vanished without a discard (deleted by hand, or the
        /// whole root): this store's values are the best copy left, and
        /// all of them are written again.
        case vanished
    }

    /// The answer to ``ReadVerdict/checkTombstone``: a tombstone means
    /// another process discarded the scene (this store's incarnation, or a
    /// later one it never saw); edits not yet saved are kept (see
    /// ``discardedElsewhere()``).
    mutating func missing(tombstone: Bool) -> MissingFile {
        if tombstone {
            discardedElsewhere()
            return .discarded
        }
        markAllPending()
        return .vanished
    }

    /// The damaged document went to quarantine: recorded, reported, and
    /// every value is marked for writing again (the scene has no file now).
    mutating func quarantined(_ recovery: QuarantinedScene) {
        lastQuarantined = recovery
        broadcast.enqueue([.quarantined(recovery)])
        markAllPending()
    }
}
