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
    /// Missing under the lock, or another incarnation (`replacement`),
    /// after this store had the file: whether a discard of the incarnation
    /// it held is recorded tells another process's discard from a file
    /// that ended otherwise (``StoreState/ended(discarded:replacement:)``).
    case checkDiscard(replacement: SceneFile?, logEnd: LogPosition?)
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
        let verdict = verdict(on: reading, logEnd: logEnd, at: site, writable: writable)
        // A file not taken yet is no place to go on reading from; nor is a
        // replacement until the tombstone was read (a failed read must
        // leave memory's file with its own position, not the new file's).
        switch verdict {
        case .lookHoldingLock, .checkDiscard: break
        default: reader.read(to: logEnd)
        }
        return verdict
    }

    private mutating func verdict(
        on reading: SceneReadResult, logEnd: LogPosition?, at site: ReadSite, writable: Bool
    ) -> ReadVerdict {
        switch reading {
        case .file(let file):
            if site.opening {
                load(file)
            } else if writable, let held = disk.incarnation, held != file.incarnation {
                // The file this store held ended: a discard, or a
                // quarantine and another process's new scene.
                return site.holdingLock ? .checkDiscard(replacement: file, logEnd: logEnd) : .lookHoldingLock
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
            return site.holdingLock ? .checkDiscard(replacement: nil, logEnd: logEnd) : .lookHoldingLock
        case .damaged(let problem):
            guard writable else { return .leaveDamaged(problem) }
            return site.holdingLock ? .quarantine(problem) : .lookHoldingLock
        }
    }

    /// What the end of the file this store held turned out to be.
    enum EndedFile: Equatable {
        /// Another process discarded the scene: memory takes the scene as
        /// it is now (empty, or a later incarnation) but for the edits not
        /// yet saved, which are saved over it.
        case discarded
        /// The file ended without a discard of it (deleted by hand or
        /// with the root, or quarantined by another process): this
        /// store's values are the best copy left, and every one the scene
        /// lacks now is written back.
        case vanished
    }

    /// The answer to ``ReadVerdict/checkDiscard(replacement:logEnd:)``, with
    /// `discarded` telling whether a discard of the incarnation this
    /// store held is recorded; `replacement`, the scene's file now
    /// (another incarnation), if there is one, whose log ends at `logEnd`
    /// (where the next reading goes on from). Edits not yet saved are
    /// kept either way (see ``discardedElsewhere()``).
    mutating func ended(discarded: Bool, replacement: SceneFile?, logEnd: LogPosition? = nil) -> EndedFile {
        reader.read(to: logEnd)
        if discarded {
            discardedElsewhere()
            if let replacement { adopt(replacement, origin: .external(writerPID: replacement.writer.pid)) }
            return .discarded
        }
        writeBack(over: replacement)
        return .vanished
    }

    /// The damaged document went to quarantine: recorded, reported, and
    /// every value is marked for writing again (the scene has no file now).
    mutating func quarantined(_ recovery: QuarantinedScene) {
        lastQuarantined = recovery
        broadcast.enqueue([.quarantined(recovery)])
        writeBack(over: nil)
    }
}
