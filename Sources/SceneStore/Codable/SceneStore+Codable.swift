extension SceneStore {
    /// Writes the model stored under `key` back at the key's schema version
    /// if an older version stored it, under the scene's lock and durably
    /// before it returns. Reading an older model starts the same in the
    /// background; call this to know it is done (at launch, say).
    ///
    /// - Returns: whether a migrated model was written; `false` when the
    ///   key holds nothing, a value of the key's version, or the key is
    ///   not a model key.
    /// - Throws: what ``value(for:)`` throws for the stored value (a model
    ///   of a newer schema is left as it is), or the errors of
    ///   ``update(_:_:)``.
    @discardableResult
    public func migrate<Value>(_ key: SceneKey<Value>) async throws -> Bool {
        guard !configuration.readOnly else { throw SceneStoreError.readOnly(scene: id.rawValue) }
        do {
            try await runUpdate(key: key.name, migration(of: key))
            return true
        } catch is NothingToMigrate {
            return false
        }
    }

    /// Starts ``migrate(_:)`` in the background, for a read that found a
    /// model of an older schema.
    func startMigration<Value>(of key: SceneKey<Value>) {
        guard !configuration.readOnly else { return }
        queueUpdate(QueuedUpdate(key: key.name, change: migration(of: key)) { _ in })
    }

    /// The read-modify-write that migrates the value stored under `key`:
    /// it writes nothing (throws ``NothingToMigrate``) unless the value is
    /// still a model of an older version.
    private func migration<Value>(of key: SceneKey<Value>) -> @Sendable (SceneValue?) throws -> SceneValue? {
        let logger = logger
        let scene = id
        return { stored in
            guard let stored, let migrated = try key.coding.read(stored).migrated else { throw NothingToMigrate() }
            logger.info("stored model migrated to the key's schema version", metadata: [
                "scene": "\(scene)", "key": "\(key.name)",
            ])
            return migrated
        }
    }
}

/// A migration's read-modify-write found nothing to migrate: it writes nothing.
private struct NothingToMigrate: Error {}
