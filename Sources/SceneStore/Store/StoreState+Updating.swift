/// Read-modify-writes, decided without I/O: which queued updates run
/// together, what their transforms' outcomes mean, and how each caller
/// resumes. The store runs the transforms and the transaction
/// (``SceneStore/runUpdates()``).
extension StoreState {
    /// What to do with the updates queued so far.
    enum UpdateBatch {
        case nothing
        /// Run them in one critical section, with one save.
        case run([QueuedUpdate])
        /// The store closed: each fails with ``SceneStoreError/closed(scene:)``.
        case refuse([QueuedUpdate])
    }

    /// Takes every queued update, as one batch (a group commit).
    mutating func takeUpdates() -> UpdateBatch {
        defer { updates = [] }
        if updates.isEmpty { return .nothing }
        return phase == .open ? .run(updates) : .refuse(updates)
    }

    /// A batch ended, its transaction failing with `failure` or not;
    /// `outcomes` are its transforms', in the batch's order: `nil` for one
    /// whose result was applied, else what it threw.
    /// - Returns: how each caller resumes (the transaction's error for all
    ///   when it failed, else each transform's own outcome), and the save to
    ///   schedule: after a failure what the batch applied stays in memory,
    ///   like the edits of a failed flush, and is saved later, never left
    ///   pending with nothing scheduled.
    mutating func updatesEnded<Caller>(
        _ batch: [Caller], outcomes: [(any Error)?], failure: (any Error)?,
        at now: @autoclosure () -> SaveSchedule.Instant
    ) -> (resumptions: [(Caller, (any Error)?)], save: SaveSchedule.Action) {
        guard let failure else { return (Array(zip(batch, outcomes)), .none) }
        return (batch.map { ($0, failure) }, saveRequested(at: now()))
    }
}
