import Foundation
import Logging

extension SceneStore {
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
        try writePending(over: synchronize(.holdingLock, in: transaction).base, in: transaction)
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
            mutate { $0.saved(written.edits, as: file, over: written.base) }
        } else {
            mutate { $0.confirmed(written.edits, current: written.base) }
        }
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
        let first = mutate { state -> Bool in
            state.failedSaves += 1
            let first = state.lastSaveError != error
            state.lastSaveError = error
            if first { state.broadcast.enqueue([.saveFailed(error)]) }
            return first
        }
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
