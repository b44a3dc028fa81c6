import Foundation

extension SceneStore {
    /// Atomically changes the value behind `key` with `transform`, across
    /// threads and processes: under the scene lock, the file is read (so
    /// another process's last write is seen), `transform` runs on the
    /// store's queue, and the result is saved before the lock is released.
    /// When it returns, the new value is durable.
    ///
    /// ```swift
    /// let count = try await store.update(.launches) { $0 += 1 }
    /// ```
    ///
    /// Concurrent updates never lose one another: 4 processes adding 1
    /// 250 times each end at exactly 1000. Updates queued together run in
    /// one critical section with one save (a group commit). Keep
    /// `transform` short: every writer of the scene waits for it. If the
    /// save fails, the error is thrown and the new value stays in memory,
    /// saved by the next save like a `set`.
    ///
    /// - Parameters:
    ///   - key: the key to change.
    ///   - transform: changes the latest value (the key's default while the
    ///     scene holds nothing); setting `nil` (for an Optional `Value`)
    ///     removes the key. If it throws, nothing is written and the error
    ///     is rethrown.
    /// - Returns: the value saved.
    /// - Throws: what ``value(for:)`` throws when the key holds a value it
    ///   cannot read (nothing is written), the errors of ``set(_:for:)``
    ///   and ``flush()``, or what `transform` threw.
    @discardableResult
    public func update<Value>(
        _ key: SceneKey<Value>, _ transform: @escaping @Sendable (inout Value) throws -> Void
    ) async throws -> Value {
        guard !configuration.readOnly else { throw SceneStoreError.readOnly(scene: id.rawValue) }
        let result = Locked<Value?>(nil)
        try await runUpdate(key: key.name) { stored in
            var value = try stored.map { (stored) throws(SceneStoreError) in try key.coding.read(stored).value }
                ?? key.defaultValue
            try transform(&value)
            let next = try key.coding.write(value)
            result.withLock { $0 = value }
            return next
        }
        guard let value = result.withLock({ $0 }) else { throw SceneStoreError.closed(scene: id.rawValue) }
        return value
    }

    /// ``update(_:_:)`` by name (for the package's tools and tests).
    @discardableResult
    package func update<Value: SceneStorable>(
        forKey key: String, default defaultValue: Value,
        _ transform: @escaping @Sendable (Value) throws -> Value
    ) async throws -> Value {
        try await update(SceneKey(key, default: defaultValue)) { $0 = try transform($0) }
    }

    /// Queues a read-modify-write of the stored value of `key` and waits
    /// for it: `change` runs under the scene's lock, on the latest value.
    func runUpdate(key: String, _ change: @escaping @Sendable (SceneValue?) throws -> SceneValue?) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queueUpdate(QueuedUpdate(key: key, change: change) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            })
        }
    }

    /// Queues `update` behind the others; the first one queued starts the
    /// batch on the store's queue.
    func queueUpdate(_ update: QueuedUpdate) {
        let first = state.withLock { state -> Bool in
            state.updates.append(update)
            return state.updates.count == 1
        }
        if first { io.submit { await self.runUpdates() } }
    }
}

extension SceneStore {
    /// Runs every update queued so far in one critical section (a group
    /// commit): each sees the result of the one before, one save makes
    /// them all durable, then each caller resumes.
    func runUpdates() async {
        let batch: [QueuedUpdate]
        switch state.withLock({ $0.takeUpdates() }) {
        case .nothing:
            return
        case .refuse(let refused):
            for update in refused { update.finish(SceneStoreError.closed(scene: id.rawValue)) }
            return
        case .run(let queued):
            batch = queued
        }
        var outcomes: [(any Error)?] = []
        var failure: SceneStoreError?
        do throws(SceneStoreError) {
            let written = try await storage.transaction(id) { (transaction) async throws(SceneStoreError) -> StoreState.SavedWrite? in
                let base = try await synchronize(.holdingLock, in: transaction).base
                for update in batch {
                    // The caller's transform runs here, outside the state's
                    // lock; a local set made meanwhile makes it run again on
                    // the value that set made, rather than be overwritten.
                    do {
                        var stored = state.withLock { $0.values[update.key] }
                        while try !apply(key: update.key, value: update.change(stored), scheduling: false, ifStill: stored) {
                            stored = state.withLock { $0.values[update.key] }
                        }
                        outcomes.append(nil)
                    } catch {
                        outcomes.append(error)
                    }
                }
                // Nothing to write unless a transform succeeded.
                guard outcomes.contains(where: { $0 == nil }) else { return nil }
                return try await writePending(over: base, in: transaction)
            }
            record(written)
        } catch {
            failure = error
        }
        let now = clock.now
        let (resumptions, save) = state.withLock {
            $0.updatesEnded(batch, outcomes: outcomes, failure: failure, at: now)
        }
        perform(save)
        for (update, error) in resumptions { update.finish(error) }
    }
}

/// An ``SceneStore/update(_:_:)`` waiting for the store's queue.
struct QueuedUpdate: Sendable {
    let key: String
    /// The new stored value from the current one (type checked inside).
    let change: @Sendable (SceneValue?) throws -> SceneValue?
    /// Told how it ended (`nil`: written, or nothing to write).
    let finish: @Sendable ((any Error)?) -> Void
}
