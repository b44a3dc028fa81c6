extension SceneStore {
    /// The value behind `key` now, then each new value as it changes,
    /// locally or from another process. A value the key cannot read
    /// (another kind, a model of another tag or a newer schema) reads as
    /// its default.
    ///
    /// Buffering keeps only the latest value: a slow consumer skips
    /// intermediate values but always ends on the current one. A discard
    /// yields the default and the stream goes on; it finishes when the
    /// store closes (the registry closes) or the consuming task is cancelled.
    public func values<Value>(for key: SceneKey<Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let name = key.name
        subscribe(continuation, currentValueOf: name) { [weak self] updates in
            for update in updates {
                switch update {
                case .changed(let changes):
                    for change in changes where change.key == name {
                        continuation.yield(self?.read(change.newValue, for: key) ?? key.defaultValue)
                    }
                case .discarded:
                    continuation.yield(key.defaultValue)
                case .quarantined, .saveFailed:
                    break
                }
            }
        }
        return stream
    }

    /// ``values(for:)`` by name (for the package's tools and tests).
    package func values<Value: SceneStorable>(forKey key: String, default defaultValue: Value) -> AsyncStream<Value> {
        values(for: SceneKey(key, default: defaultValue))
    }

    /// Every change of every key, in order, from the moment of the call:
    /// ``updates()``' changes one by one. For the package's own tests and
    /// tools; apps read ``updates()``.
    package func changes() -> AsyncStream<SceneChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: SceneChange.self)
        subscribe(continuation) { updates in
            for update in updates {
                for change in update.changes { continuation.yield(change) }
            }
        }
        return stream
    }

    /// Everything that happens to the scene, in order, from the moment of
    /// the call: a local set or remove; all the keys one save of another
    /// process changed (one element, so a reader sees that save whole,
    /// never half of it); a discard; a damaged file moved to quarantine; a
    /// failing save. Each says where it came from (``SceneUpdate/origin``).
    /// Unbounded buffering: nothing is dropped.
    /// Finishes like ``values(for:)``.
    ///
    /// ```swift
    /// for await update in store.updates() where update.origin != .local {
    ///     reload(update.changes)   // another process's save, whole
    /// }
    /// ```
    public func updates() -> AsyncStream<SceneUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: SceneUpdate.self)
        subscribe(continuation) { updates in
            for update in updates { continuation.yield(update) }
        }
        return stream
    }

    /// How many streams are subscribed now (for leak checks).
    package var subscriberCount: Int {
        state.withLock { $0.broadcast.count }
    }

    /// Registers `receive` and, given a key, sends the current value of
    /// that key (as a change from nothing) to this subscriber alone, under
    /// the same lock, so no change can fall between the two.
    private func subscribe<Element>(
        _ continuation: AsyncStream<Element>.Continuation,
        currentValueOf key: String? = nil,
        receive: @escaping @Sendable ([SceneUpdate]) -> Void
    ) {
        let subscriber = Broadcast.Subscriber(receive: receive, finish: { continuation.finish() })
        let id = mutate { state -> UInt64? in
            guard state.phase == .open else { return nil }
            let current = key.map { key in
                [SceneUpdate.changed([SceneChange(
                    key: key, oldValue: nil, newValue: state.values[key], origin: .local, generation: nil)])]
            }
            return state.broadcast.register(subscriber, initial: current ?? [])
        }
        guard let id else {
            continuation.finish()
            return
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.broadcast.unregister(id) }
        }
    }
}
