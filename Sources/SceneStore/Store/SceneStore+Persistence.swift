import Foundation
import Logging

extension SceneStore {
    /// Loads the scene file on open (on the caller's thread: opening is the
    /// one call that reads the disk synchronously). Cleans leftovers of
    /// crashed writers when `cleanLeftovers`; moves a damaged file to
    /// quarantine and starts empty (other processes that hold the scene
    /// write it again from their memory: see ``reconcileMissingFile()``).
    func load(cleanLeftovers: Bool) throws(SceneStoreError) {
        if cleanLeftovers {
            try storage.transaction(id) { (transaction) throws(SceneStoreError) in transaction.removeLeftovers() }
        }
        switch try storage.read(id) {
        case .missing:
            break
        case .file(let file):
            state.withLock { $0.load(file) }
        case .newerVersion(let version):
            throw unsupported(version)
        case .damaged(let problem):
            guard configuration.access == .readWrite else {
                logger.warning("damaged scene file left in place (read-only); the scene reads as empty", metadata: [
                    "scene": "\(id)", "problem": "\(problem)",
                ])
                return
            }
            try storage.transaction(id) { (transaction) throws(SceneStoreError) in
                switch try transaction.read(as: id, limits: storage.limits) {
                case .missing: break
                case .file(let file): state.withLock { $0.load(file) }
                case .newerVersion(let version): throw unsupported(version)
                case .damaged(let problem): try quarantineDamagedFile(problem, in: transaction)
                }
            }
        }
    }

    func unsupported(_ version: Int) -> SceneStoreError {
        .unsupportedFormat(scene: id.rawValue, version: version, path: storage.location(of: id))
    }

    /// Moves the damaged scene file to quarantine and reports it. Call with
    /// the scene lock held. A quarantine folder that is not a real
    /// directory (a symlink) is never followed: the damaged file stays and
    /// the error is thrown and logged.
    func quarantineDamagedFile(_ problem: SceneFile.Problem, in transaction: any SceneStorageTransaction) throws(SceneStoreError) {
        let reason: String
        switch problem {
        case .malformed: reason = "malformed"
        case .badChecksum: reason = "bad-checksum"
        case .newerVersion: reason = "newer-version"
        }
        let destination: String
        do throws(SceneStoreError) {
            destination = try transaction.quarantine(reason: reason)
        } catch {
            logger.error("damaged scene file could not be moved to quarantine; left in place", metadata: [
                "scene": "\(id)", "problem": "\(problem)", "error": "\(error)",
            ])
            throw error
        }
        let recovery = SceneRecovery(scene: id, reason: "\(problem)", quarantinedFile: destination)
        logger.warning("damaged scene file moved to quarantine", metadata: [
            "scene": "\(id)", "problem": "\(problem)", "quarantined": "\(destination)",
        ])
        state.withLock {
            $0.lastRecovery = recovery
            $0.broadcast.enqueue([.recovered(recovery)])
        }
        state.deliver(\.broadcast)
    }

    // MARK: Saving

    /// Carries out what the save schedule decided.
    func perform(_ action: SaveSchedule.Action) {
        switch action {
        case .none:
            break
        case .saveNow:
            io.async { self.saveInBackground() }
        case .save(let instant):
            Task {
                // Never cancelled: a store that closed meanwhile skips the save.
                try? await clock.sleep(until: instant)
                io.async { self.saveInBackground() }
            }
        }
    }

    /// A save the schedule queued; its failure is reported (and retried as
    /// the schedule says), not thrown.
    private func saveInBackground() {
        try? saveNow(queued: true)
    }

    /// Saves the pending edits, merged over whatever is on disk now:
    /// lock, read, apply pending sets and removes, write generation + 1
    /// atomically, unlock. Runs on ``io``.
    func saveNow(queued: Bool = false) throws(SceneStoreError) {
        dispatchPrecondition(condition: .onQueue(io))
        let wanted = state.withLock { state -> Bool in
            guard state.acceptsSaves, !state.pending.isEmpty else {
                if queued { state.saves.queuedSaveSkipped() }
                return false
            }
            state.saves.saveStarted()
            return true
        }
        guard wanted else { return }
        do throws(SceneStoreError) {
            let written = try storage.transaction(id) { (transaction) throws(SceneStoreError) in
                try saveHoldingLock(transaction)
            }
            record(written)
        } catch {
            reportSaveFailure(error)
            saveEnded()
            throw error
        }
        reportSaveSuccess()
        saveEnded()
    }

    /// Tells the schedule that the save ended, and queues the next one if
    /// edits are left.
    private func saveEnded() {
        let now = clock.now
        let action = state.withLock { state in
            var retryable = true
            if case .unsupportedFormat? = state.lastSaveError { retryable = false }  // retrying cannot help
            return state.saves.saveEnded(
                at: now, pendingLeft: state.acceptsSaves && !state.pending.isEmpty,
                failures: state.failedSaves, retryable: retryable)
        }
        perform(action)
    }

    /// The save itself, inside the caller's transaction.
    /// - Returns: what to ``record(_:)`` once the transaction has ended.
    func saveHoldingLock(_ transaction: any SceneStorageTransaction) throws(SceneStoreError) -> SavedWrite? {
        try writePending(over: currentFile(known: state.withLock { $0.diskFile }, in: transaction), in: transaction)
    }

    /// Writes the pending edits over `base`, the file as it is now (read
    /// inside `transaction`, which still holds the lock).
    /// - Returns: what to ``record(_:)`` once the transaction has ended
    ///   (then the write is durable: a database commits only at the end),
    ///   or `nil` when there was nothing to write.
    func writePending(over base: SceneFile?, in transaction: any SceneStorageTransaction) throws(SceneStoreError) -> SavedWrite? {
        // Taken after reading the file: a recovery there marks every value pending.
        let edits = state.withLock { $0.pending }
        guard !edits.isEmpty else { return nil }
        // Edits the disk already holds (a set equal to a value this store
        // showed, which was current after all) need no new version.
        guard edits.contains(where: { key, edit in base?.values[key] != edit.value }) else {
            return SavedWrite(edits: edits, file: nil, base: base)
        }
        var values = base?.values ?? [:]
        for (key, edit) in edits {
            values[key] = edit.value
        }
        let generation = base?.generation ?? 0
        guard generation < SceneFile.maxGeneration else { throw .generationExhausted(scene: id.rawValue) }
        let file = SceneFile(
            scene: id.rawValue,
            generation: generation + 1,
            incarnation: base?.incarnation ?? randomToken(),
            writer: writer,
            values: values
        )
        let bytes = encoder.withLock { $0.encode(file, over: base, edited: edits.keys) }
        try transaction.write(bytes)
        if base == nil { try transaction.removeTombstone() }
        return SavedWrite(edits: edits, file: file, base: base)
    }

    /// Memory catches up with a write its transaction made durable.
    func record(_ written: SavedWrite?) {
        guard let written else { return }
        if let file = written.file {
            encoder.withLock { $0.written(file.version) }
            state.withLock { $0.saved(written.edits, as: file, over: written.base) }
        } else {
            state.withLock { $0.confirmed(written.edits, current: written.base) }
        }
        state.deliver(\.broadcast)
    }

    /// With the lock held: memory catches up with the file as it is now
    /// (another process's last save), before a read-modify-write.
    /// - Returns: that file, to save over.
    func adoptLatestHoldingLock(_ transaction: any SceneStorageTransaction) throws(SceneStoreError) -> SceneFile? {
        let file = try currentFile(known: state.withLock { $0.diskFile }, in: transaction)
        if let file { adoptExternal(file) }
        state.deliver(\.broadcast)
        return file
    }

    /// The scene file as it is now, for a save holding the lock: `known`
    /// when the header shows the version this store already has (no
    /// decoding), else the decoded file. A damaged file is moved to
    /// quarantine and a vanished one is told from a discard; in both cases
    /// the store's values are all written again, as a new incarnation.
    func currentFile(known: SceneFile?, in transaction: any SceneStorageTransaction) throws(SceneStoreError) -> SceneFile? {
        let data: Data
        switch try transaction.readBytes(skip: known.map { known in { $0 == known.version } }) {
        case .missing:
            try reconcileMissingFile(in: transaction)
            return nil
        case .notADocument(let what):
            return try recoverAndRewriteAll(.malformed(what), in: transaction)
        case .skipped:
            return known
        case .bytes(let bytes):
            data = bytes
        }
        switch SceneReadResult(interpreting: data, as: id, limits: storage.limits) {
        case .missing:
            return nil
        case .file(let file):
            return file
        case .newerVersion(let version):
            throw unsupported(version)
        case .damaged(let problem):
            return try recoverAndRewriteAll(problem, in: transaction)
        }
    }

    /// With the lock held: quarantines the damaged file and marks every
    /// value pending, so the save that follows writes the whole scene.
    private func recoverAndRewriteAll(
        _ problem: SceneFile.Problem, in transaction: any SceneStorageTransaction
    ) throws(SceneStoreError) -> SceneFile? {
        try quarantineDamagedFile(problem, in: transaction)
        state.withLock { $0.markAllPending() }
        return nil
    }

    /// What a missing scene file turned out to be.
    enum MissingFile {
        /// This store never had the file, or it was already reconciled.
        case nothing
        /// Another process discarded the scene; `keptEdits` says whether
        /// edits this process had not saved yet are waiting to be saved.
        case discarded(keptEdits: Bool)
        /// The file vanished without a discard: every value is pending.
        case vanished
    }

    /// With the lock held and the scene file missing: if there is a
    /// tombstone, another process discarded the scene (this store's
    /// incarnation, or a later one it never saw; edits not yet saved are
    /// kept, see ``StoreState/discard(origin:)``); otherwise the file
    /// vanished (deleted by hand, or the whole root) and this store's values
    /// are the best copy left: all of them are marked for writing again.
    @discardableResult
    func reconcileMissingFile(in transaction: any SceneStorageTransaction) throws(SceneStoreError) -> MissingFile {
        let discarded = try transaction.hasTombstone()
        let outcome = state.withLock { state -> MissingFile in
            guard state.disk.incarnation != nil else { return .nothing }
            if discarded {
                state.discard(origin: .external(writerPID: nil))
                return .discarded(keptEdits: !state.pending.isEmpty)
            }
            state.markAllPending()
            return .vanished
        }
        if case .vanished = outcome {
            logger.warning("scene file vanished without a discard; writing it again from memory", metadata: [
                "scene": "\(id)",
            ])
        }
        state.deliver(\.broadcast)
        return outcome
    }

    /// Schedules a save as the policy says, unless one is scheduled already.
    func requestSave() {
        let action = state.withLock { state -> SaveSchedule.Action in
            guard state.acceptsSaves, !state.pending.isEmpty else { return .none }
            return state.saves.edited(at: clock.now)
        }
        perform(action)
    }

    private func reportSaveFailure(_ error: SceneStoreError) {
        let first = state.withLock { state -> Bool in
            state.failedSaves += 1
            let first = state.lastSaveError != error
            state.lastSaveError = error
            if first { state.broadcast.enqueue([.saveFailed(error)]) }
            return first
        }
        state.deliver(\.broadcast)
        let metadata: Logger.Metadata = ["scene": "\(id)", "error": "\(error)"]
        if first {
            logger.warning("save failed; the values stay in memory and are retried", metadata: metadata)
        } else {
            logger.debug("save failed again", metadata: metadata)
        }
    }

    private func reportSaveSuccess() {
        let recovered = state.withLock { state -> Bool in
            defer { state.lastSaveError = nil; state.failedSaves = 0 }
            return state.lastSaveError != nil
        }
        if recovered { logger.info("saving works again", metadata: ["scene": "\(id)"]) }
    }

    /// Returns once every value set before the call is durable on disk.
    ///
    /// - Throws: ``SceneStoreError`` when the save fails (full disk, a file
    ///   of a newer format, a lock held too long, a read-only registry ...);
    ///   the values stay in memory and the next save or flush tries again.
    public func flush() async throws {
        guard configuration.access == .readWrite else { throw SceneStoreError.readOnly(scene: id.rawValue) }
        try await onIO { () throws in try self.saveNow() }
    }

    func onIO(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            io.async {
                do {
                    try work()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

/// A write made inside a transaction, recorded in memory (``SceneStore/record(_:)``)
/// once the transaction has ended and the write is durable.
struct SavedWrite {
    let edits: [String: PendingEdit]
    /// The version written; `nil` when `base` already held every edit.
    let file: SceneFile?
    let base: SceneFile?
}
