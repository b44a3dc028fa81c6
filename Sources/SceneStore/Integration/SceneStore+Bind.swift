import Observation

extension SceneStore {
    /// Keeps stored properties of an `@Observable` model in this
    /// scene: restores them now, saves each change of the model, and shows
    /// in the model every other change of their keys — from this process
    /// or another — and every discard.
    ///
    /// ```swift
    /// @Observable @MainActor final class Settings {
    ///     var selectedTab = 0
    ///     var query = ""
    /// }
    /// extension SceneKey where Value == String {
    ///     static var query: Self { .init("query", default: "") }
    /// }
    /// let settings = Settings()
    /// let bound = store.bind([
    ///     SceneProperty(\.selectedTab, key: .selectedTab),
    ///     SceneProperty(\.query, key: .query),
    /// ], on: settings)
    /// settings.selectedTab = 2      // saved; other processes' models show it
    /// ```
    ///
    /// What it promises:
    /// * Binding restores every key the scene holds into the model and
    ///   writes nothing; a key the scene lacks shows the key's default.
    /// * A change of the model (tracked with Observation, no polling) is
    ///   set in the store, which saves it as every `set` is saved. Only the
    ///   model's own edits are written, never a value it just showed, and
    ///   never a default over a value the key cannot read.
    /// * A change of a key, local or written by another process, is shown
    ///   in the model on the main actor (observers of the model are
    ///   notified); a burst of changes is shown once, as the latest value.
    ///   A removed key or a discarded scene shows the default.
    /// * A value the store refuses (over a limit, or the store is closed)
    ///   is logged as a warning and kept in ``BoundModel/lastError``; the
    ///   property goes back to what the store holds.
    ///
    /// - Parameters:
    ///   - properties: the properties and their keys; each key once.
    ///   - model: the model; held weakly.
    /// - Returns: a handle on the running binding. The binding runs until
    ///   ``BoundModel/stop()`` is called or the store closes (a model
    ///   released before has its last edits saved then): discarding the
    ///   handle does not stop it.
    @MainActor @discardableResult
    public func bind<Model: Observable & AnyObject>(
        _ properties: [SceneProperty<Model>], on model: Model
    ) -> BoundModel {
        let keys = Set(properties.map(\.name))
        // Subscribed before reading, so that no change falls in between.
        let signals = changeSignals(for: keys)
        let link = ModelLink(store: self, model: model, properties: properties)
        let runner = BindingRunner(
            store: self, model: model, read: link.read, reconcile: link.reconcile,
            handOver: {
                link.reconcile()  // saving is a set: done now
                return {}
            })
        link.restore()
        runner.start(following: signals)
        return BoundModel(lastError: { link.lastError }, runner: runner)
    }

    /// One element whenever one of `keys` may hold another value: a change
    /// of the key (another process's only, unless `includingLocal`) or a
    /// discard of the scene. Keeps only the latest: a burst reads as one.
    /// Subscribed when called; finishes with the store's streams.
    package func changeSignals(for keys: Set<String>, includingLocal: Bool = true) -> AsyncStream<Void> {
        let updates = updates()
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            for await update in updates {
                switch update {
                case .discarded: continuation.yield()
                case .changed(let changes)
                where changes.contains(where: { keys.contains($0.key) && (includingLocal || $0.origin != .local) }):
                    continuation.yield()
                default: break
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return signals
    }
}
