extension SceneStore {
    /// The model stored under `key`, or the key's default while it holds
    /// nothing. Synchronous; never waits for the disk.
    ///
    /// A model of an older schema version is carried through the key's
    /// migrations, and the migrated model is written back in the
    /// background, under the scene's lock, unless the stored value changed
    /// meanwhile (``migrate(_:)`` does it and waits).
    ///
    /// - Throws: a ``SceneCodableError`` when the key holds another kind of
    ///   value, data that is not a stored model, a model of another tag or
    ///   of a newer schema, JSON that no longer decodes, or a migration
    ///   step threw. Nothing changes.
    public func decode<Model>(_ key: SceneCodableKey<Model>) throws(SceneCodableError) -> Model {
        guard let stored = value(forKey: key.name, as: SceneValue.self) else { return key.defaultValue }
        guard case .data(let data) = stored else { throw .wrongKind(key: key.name, stored: stored.kind) }
        let (model, migrated) = try ModelDocument.read(data, for: key)
        if migrated != nil, configuration.access == .readWrite {
            queueUpdate(QueuedUpdate(key: key.name, change: migration(of: key)) { _ in })
        }
        return model
    }

    /// Writes the model stored under `key` back at the key's schema
    /// version if an older version stored it, under the scene's lock and
    /// durably before it returns. ``decode(_:)`` starts the same in the
    /// background; call this to know it is done (at launch, say).
    ///
    /// - Returns: whether a migrated model was written; `false` when the
    ///   key holds nothing or a model of the key's version.
    /// - Throws: what ``decode(_:)`` throws for the stored value (a model
    ///   of a newer schema is left as it is), or the errors of
    ///   ``update(forKey:default:_:)``.
    @discardableResult
    public func migrate<Model>(_ key: SceneCodableKey<Model>) async throws -> Bool {
        guard configuration.access == .readWrite else { throw SceneStoreError.readOnly(scene: id.rawValue) }
        do {
            try await runUpdate(key: key.name, migration(of: key))
            return true
        } catch is NothingToMigrate {
            return false
        }
    }

    /// The read-modify-write that migrates the value stored under `key`:
    /// it writes nothing (throws ``NothingToMigrate``) unless the value is
    /// still a model of an older version.
    private func migration<Model>(of key: SceneCodableKey<Model>) -> @Sendable (SceneValue?) throws -> SceneValue? {
        let logger = logger
        let scene = id
        return { stored in
            guard let stored else { throw NothingToMigrate() }
            guard case .data(let data) = stored else { throw SceneCodableError.wrongKind(key: key.name, stored: stored.kind) }
            guard let migrated = try ModelDocument.read(data, for: key).migrated else { throw NothingToMigrate() }
            logger.info("stored model migrated to the key's schema version", metadata: [
                "scene": "\(scene)", "key": "\(key.name)", "tag": "\(key.tag)", "version": "\(key.version)",
            ])
            return .data(migrated)
        }
    }

    /// Stores `model` under `key` (in memory now, saved like every `set`).
    ///
    /// It refuses to write over a value of another kind, data that is not
    /// a stored model, or a model of another tag or a newer schema, so that
    /// no reader silently loses what a writer stored; remove the key first
    /// (``removeValue(forKey:)``) to replace such a value on purpose. A model
    /// of the key's own tag that no longer decodes is replaced. The save
    /// checks again, holding the scene's lock: if another process stored a
    /// model of a newer schema meanwhile, this one is not written and the
    /// store takes the newer one (a warning is logged).
    ///
    /// - Throws: ``SceneCodableError``; ``SceneCodableError/store(_:)`` when
    ///   the store refuses the data (a limit, a closed store).
    public func encode<Model>(_ model: Model, for key: SceneCodableKey<Model>) throws(SceneCodableError) {
        try ModelDocument.checkOverwrite(value(forKey: key.name, as: SceneValue.self), for: key)
        let data = try ModelDocument.encode(model, for: key)
        do {
            try apply(key: key.name, value: .data(data)) { ModelDocument.mayReplace($0, for: key) }
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

/// A migration's read-modify-write found nothing to migrate: it writes nothing.
private struct NothingToMigrate: Error {}
