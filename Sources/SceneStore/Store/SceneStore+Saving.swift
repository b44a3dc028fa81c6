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
            // Its failure is reported (and retried as the schedule says), not thrown.
            io.submit { try? await self.saveNow(queued: true) }
        case .save(let instant):
            Task {
                // Never cancelled: a store that closed meanwhile skips the save.
                try? await clock.sleep(until: instant)
                let now = clock.now
                perform(state.withLock { $0.saves.timerFired(at: now) })
            }
        }
    }

    /// Saves the pending edits, merged over whatever is on disk now:
    /// lock, read, apply pending sets and removes, write generation + 1
    /// atomically, unlock. Runs holding ``io``.
    ///
    func saveNow(queued: Bool = false) async throws(SceneStoreError) {
        guard state.withLock({ $0.beginSave(queued: queued) }) else { return }
        // An append of this save that did not end in record(_:) (refused,
        // failed, or deferred) is not this store's record: forgotten here.
        defer { state.withLock { $0.reader.appendEnded(written: false) } }
        var failure: SceneStoreError?
        do throws(SceneStoreError) {
            if let written = try await commitIfCurrent() {
                record(written)
            } else {
                let written = try await storage.transaction(id) { (transaction) async throws(SceneStoreError) in
                    try await saveHoldingLock(transaction)
                }
                record(written)
            }
        } catch {
            failure = error
        }
        let now = clock.now
        let (next, report) = mutate { $0.saveEnded(at: now, failure: failure) }
        log(report, failure)
        perform(next)
        if let failure { throw failure }
    }

    private func log(_ report: StoreState.SaveReport, _ failure: SceneStoreError?) {
        // Built only for a report: most saves make none.
        var metadata: Logger.Metadata { ["scene": "\(id)", "error": "\(failure.map { "\($0)" } ?? "")"] }
        switch report {
        case .none: break
        case .failed: logger.warning("save failed; the values stay in memory and are retried", metadata: metadata)
        case .failedAgain: logger.debug("save failed again", metadata: metadata)
        case .recovered: logger.info("saving works again", metadata: ["scene": "\(id)"])
        }
    }

    /// The save in one step, where memory holds the stored document: the
    /// pending edits as the record of its next generation, committed only
    /// if it is still the stored one (``SceneStorage/commit(_:_:over:using:)``).
    /// - Returns: what to ``record(_:)``, or `nil` when it did not write
    ///   (the scene changed, was locked, or only a locked read can decide):
    ///   then the save takes the lock.
    private func commitIfCurrent() async throws(SceneStoreError) -> StoreState.SavedWrite? {
        // The plan and the log's position in one take of the lock.
        guard let ((base, edits, record), position) = state.withLock({ state in
                  state.planRecordWithoutLock(writer: writer).map { ($0, state.reader.position) }
              })
        else { return nil }
        let commit = try await storage.commit(id, record, over: base, using: writing(from: position))
        return commit == .refused ? nil : .committed(edits, record, over: base.version, as: commit)
    }

    /// What the storage uses of this store to write a save, the log's
    /// position read holding the lock.
    private func writing(from position: LogPosition?) -> SaveWriting {
        SaveWriting(encoder: encoder, position: position) { end in
            self.state.withLock { $0.reader.appending(ending: end) }
        }
    }

    /// The save itself, inside the caller's transaction.
    /// - Returns: what to ``record(_:)`` once the transaction has ended.
    func saveHoldingLock(_ transaction: any SceneStorageTransaction) async throws(SceneStoreError) -> StoreState.SavedWrite? {
        try await writePending(over: synchronize(.holdingLock, in: transaction).base, in: transaction)
    }

    /// Writes the pending edits over `base`, the file as it is now (read
    /// inside `transaction`, which still holds the lock).
    /// - Returns: what to ``record(_:)`` once the transaction has ended
    ///   (then the write is durable: a database commits only at the end),
    ///   or `nil` when there was nothing to write.
    func writePending(
        over base: SceneFile?, in transaction: any SceneStorageTransaction
    ) async throws(SceneStoreError) -> StoreState.SavedWrite? {
        // Planned after reading the document: a recovery there marks every value pending.
        let (refused, plan) = try mutate { (state) throws(SceneStoreError) in
            (state.dropEditsRefused(by: base, writer: writer), try state.plan(over: base, scene: id, writer: writer))
        }
        if !refused.isEmpty {
            logger.warning("not written over what another process stored meanwhile (a model of a newer schema)", metadata: [
                "scene": "\(id)", "keys": "\(refused.joined(separator: ", "))",
            ])
        }
        switch plan {
        case .nothing:
            return nil
        case .confirm(let edits):
            return .confirmed(edits, current: base)
        case .write(let edits, let file):
            let position = try await transaction.write(
                file, over: base, edited: Array(edits.keys), using: writing(from: state.withLock { $0.reader.position }))
            return .written(edits, file, over: base, position: position)
        }
    }

    /// Memory catches up with a write made durable (``StoreState/recorded(_:)``).
    func record(_ written: StoreState.SavedWrite?) {
        guard let written else { return }
        let (version, reload) = mutate { $0.recorded(written) }
        if let version { encoder.withLock { $0.written(version) } }
        if reload { scheduleReload() }
    }

    /// Returns once every value set before the call is durable on disk.
    ///
    /// - Throws: ``SceneStoreError`` when the save fails (full disk, a file
    ///   of a newer format, a lock held too long, a read-only registry ...);
    ///   the values stay in memory and the next save or flush tries again.
    public func flush() async throws {
        guard !configuration.readOnly else { throw SceneStoreError.readOnly(scene: id.rawValue) }
        try await io.run { () async throws(SceneStoreError) in try await self.saveNow() }
    }
}
