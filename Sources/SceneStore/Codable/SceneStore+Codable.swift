extension SceneStore {
    /// The model stored under `key`, or the key's default while it holds
    /// nothing. Synchronous; never touches the disk.
    ///
    /// - Throws: a ``SceneCodableError`` when the key holds another kind of
    ///   value, data that is not a stored model, a model of another tag or
    ///   of a newer schema, or JSON that no longer decodes. Nothing changes.
    public func decode<Model>(_ key: SceneCodableKey<Model>) throws(SceneCodableError) -> Model {
        try ModelDocument.decode(value(forKey: key.name, as: SceneValue.self), for: key)
    }

    /// Stores `model` under `key` (in memory now, saved like every `set`).
    ///
    /// It refuses to write over a value of another kind, data that is not
    /// a stored model, or a model of another tag or a newer schema, so that
    /// no reader silently loses what a writer stored; remove the key first
    /// (``removeValue(forKey:)``) to replace such a value on purpose. A model
    /// of the key's own tag that no longer decodes is replaced.
    ///
    /// - Throws: ``SceneCodableError``; ``SceneCodableError/store(_:)`` when
    ///   the store refuses the data (a limit, a closed store).
    public func encode<Model>(_ model: Model, for key: SceneCodableKey<Model>) throws(SceneCodableError) {
        try ModelDocument.checkOverwrite(value(forKey: key.name, as: SceneValue.self), for: key)
        let data = try ModelDocument.encode(model, for: key)
        do {
            try set(data, forKey: key.name)
        } catch {
            throw .store(error)
        }
    }

    /// Changes the stored model in place under the scene lock, across
    /// threads and processes, as ``update(forKey:default:_:)`` does for a
    /// plain value: `transform` gets the latest model on disk (the default
    /// while the key holds nothing) and its result is durable when this
    /// returns.
    ///
    /// ```swift
    /// try await store.update(.layout) { $0.columns += 1 }
    /// ```
    ///
    /// - Returns: the model saved.
    /// - Throws: ``SceneCodableError`` when the stored value cannot be read
    ///   as the key's model (nothing is written), what `transform` threw,
    ///   or the errors of ``update(forKey:default:_:)``.
    @discardableResult
    public func update<Model>(
        _ key: SceneCodableKey<Model>, _ transform: @escaping @Sendable (inout Model) throws -> Void
    ) async throws -> Model {
        let saved = try await update(forKey: key.name, default: SceneValue?.none) { stored in
            var model = try ModelDocument.decode(stored, for: key)
            try transform(&model)
            return .data(try ModelDocument.encode(model, for: key))
        }
        return try ModelDocument.decode(saved, for: key)
    }
}
