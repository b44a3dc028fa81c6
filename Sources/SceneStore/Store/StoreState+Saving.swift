/// Saving, decided without I/O: whether a save runs, what it writes over
/// the document it read, and what follows when it ended. The store does
/// the writing (``SceneStore/saveNow(queued:)``).
extension StoreState {
    /// What a save writes over the document it read.
    enum WritePlan {
        /// Nothing is pending.
        case nothing
        /// The document already holds every pending edit (a set equal to a
        /// value this store showed, which was current after all): no new
        /// version; the edits are cleared once the transaction ended.
        case confirm([String: PendingEdit])
        /// A new version: `file`, holding `edits` over the document read.
        case write([String: PendingEdit], SceneFile)
    }

    /// A save's write, recorded in memory (``recorded(_:)``) once it is
    /// durable: a transaction's once it has ended.
    enum SavedWrite {
        /// The record of `edits` committed over the version memory held (the
        /// save in one step): appended, or the document written whole by
        /// the storage (PostgreSQL, its log past its bound).
        case committed([String: PendingEdit], SceneFileRecord, over: DiskVersion, as: Commit)
        /// `file` written over `base`, the document the transaction read;
        /// `position`, where its log ends when it was written whole.
        case written([String: PendingEdit], SceneFile, over: SceneFile?, position: LogPosition?)
        /// `current` held every edit already: nothing written.
        case confirmed([String: PendingEdit], current: SceneFile?)
    }

    /// Memory catches up with `written`, and the next reading goes on
    /// from after it.
    /// - Returns: the version written (what the encoder encoded last is
    ///   stored), and whether to read the scene again: memory moved on
    ///   from the version an append went over (a reload is then queued).
    mutating func recorded(_ written: SavedWrite) -> (written: DiskVersion?, reload: Bool) {
        switch written {
        case .committed(let edits, let record, let base, let commit):
            let applied = appended(edits, record, over: base)
            if case .written(let end) = commit {
                reader.appendEnded(written: false)
                // Not applied: the position stays behind, so the reading queued reads whole.
                if applied { reader.read(to: end) }
            } else {
                reader.appendEnded(written: applied)
            }
            return (DiskVersion(incarnation: base.incarnation, generation: record.generation), !applied && reloadRequested())
        case .written(let edits, let file, let base, let position):
            saved(edits, as: file, over: base)
            reader.saved(wholeFileAt: position)
            return (file.version, false)
        case .confirmed(let edits, let current):
            confirmed(edits, current: current)
            return (nil, false)
        }
    }

    /// How a save's outcome is reported (logged by the store).
    enum SaveReport: Equatable {
        case none
        /// The first failure with this error: a ``SceneUpdate/saveFailed(_:)``
        /// was enqueued.
        case failed
        /// The same error once more.
        case failedAgain
        /// A save succeeded after failures.
        case recovered
    }

    /// A save is about to run: `queued` by the schedule, else a flush's.
    /// - Returns: `false` when there is nothing to save (closed, or
    ///   nothing pending: a flush got there first).
    mutating func beginSave(queued: Bool) -> Bool {
        guard acceptsSaves, !pending.isEmpty else {
            if queued { saves.queuedSaveSkipped() }
            return false
        }
        saves.saveStarted()
        return true
    }

    /// The pending edits merged, key by key, over `base` (the document as
    /// it is, read holding the lock; `nil`: none, a new incarnation begins).
    /// - Throws: ``SceneStoreError/generationExhausted(scene:)``.
    func plan(over base: SceneFile?, scene: SceneID, writer: WriterIdentity) throws(SceneStoreError) -> WritePlan {
        guard !pending.isEmpty else { return .nothing }
        guard pending.contains(where: { key, edit in base?.values[key] != edit.value }) else {
            return .confirm(pending)
        }
        var values = base?.values ?? [:]
        for (key, edit) in pending {
            values[key] = edit.value
        }
        let generation = base?.generation ?? 0
        guard generation < SceneFile.maxGeneration else { throw .generationExhausted(scene: scene.rawValue) }
        return .write(pending, SceneFile(
            scene: scene.rawValue,
            generation: generation + 1,
            incarnation: base?.incarnation ?? randomToken(),
            writer: writer,
            values: values
        ))
    }

    /// The save a store may commit without the lock, over the document it
    /// holds as current: the pending edits that change it, as the record
    /// of its next generation, planned without building the scene's values
    /// (a save of one key of 10 000 copies none of the others). Keys keep
    /// the spelling the document has. `nil` when only a read holding the
    /// lock can decide: no document held; an edit the held document
    /// refuses; every edit equal to a held value, which may be stale; the
    /// generations exhausted. The record lands only if that document is
    /// still the stored one (``SceneStorage/commit(_:_:over:using:)``), so
    /// it is the write the locked save would have made.
    func planRecordWithoutLock(writer: WriterIdentity) -> (base: SceneFile, edits: [String: PendingEdit], record: SceneFileRecord)? {
        guard let base = diskFile, base.generation < SceneFile.maxGeneration,
              !pending.contains(where: { key, edit in Self.refuses(edit, key, over: base, writer: writer) })
        else { return nil }
        var set: [(String, SceneValue)] = []
        var removed: [String] = []
        for (key, edit) in pending {
            let stored = base.values.entry(forKey: key)
            if let value = edit.value {
                if stored?.value != value { set.append((stored?.key ?? key, value)) }
            } else if let stored {
                removed.append(stored.key)
            }
        }
        // Every edit equal to a held value, which may be stale: only a read holding the lock can tell.
        guard !set.isEmpty || !removed.isEmpty else { return nil }
        set.sort { utf8Precedes($0.0, $1.0) }
        removed.sort(by: utf8Precedes)
        let record = SceneFileRecord(generation: base.generation + 1, writer: writer, set: set, removed: removed)
        return (base, pending, record)
    }

    /// A save ended at `now`, failing with `failure` or not: the failure is
    /// recorded (and reported once per error), and the next save is
    /// scheduled if edits are left: after the window, or after a back-off
    /// that grows with the failures in a row; never for a newer format,
    /// which retrying cannot fix.
    mutating func saveEnded(at now: SaveSchedule.Instant, failure: SceneStoreError?) -> (SaveSchedule.Action, SaveReport) {
        let report: SaveReport
        if let failure {
            failedSaves += 1
            report = lastSaveError == failure ? .failedAgain : .failed
            lastSaveError = failure
            if report == .failed { broadcast.enqueue([.saveFailed(failure)]) }
        } else {
            report = lastSaveError == nil ? .none : .recovered
            lastSaveError = nil
            failedSaves = 0
        }
        var retryable = true
        if case .unsupportedFormat? = lastSaveError { retryable = false }
        let next = saves.saveEnded(
            at: now, pendingLeft: acceptsSaves && !pending.isEmpty, failures: failedSaves, retryable: retryable)
        return (next, report)
    }

    /// Something left edits pending outside a save (a failed update, a
    /// discard that kept edits, a failed reload): a save is scheduled as the
    /// policy says, unless one is already.
    mutating func saveRequested(at now: @autoclosure () -> SaveSchedule.Instant) -> SaveSchedule.Action {
        guard acceptsSaves, !pending.isEmpty else { return .none }
        return saves.edited(at: now())
    }
}
