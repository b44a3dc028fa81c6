extension SceneKey where Value: Codable {
    /// A key that keeps a `Codable` model as JSON `Data`, registered under
    /// a stable tag and a schema version so that reading never guesses a
    /// type. It reads, binds, wraps and streams like every other key:
    ///
    /// ```swift
    /// try store.set(Layout(sidebarWidth: 300), for: .layout)
    /// let layout = store[.layout]                        // Layout() while the key is empty
    /// try await store.update(.layout) { $0.columns += 1 } // atomic across processes
    /// @SceneStored(.layout, store: store) var windowLayout: Layout
    /// ```
    ///
    /// The stored `Data` is a small JSON document naming the tag and
    /// version next to the model's own JSON:
    /// `{"format":"scenestore.model","tag":"layout","value":{…},"version":1}`.
    /// It is still one of the six kinds (Data), not a seventh.
    ///
    /// ## The registered-type rule
    /// The key is the registration: a stored model is decoded only as the
    /// model of a key whose tag it carries, never as a type named by the
    /// data. A value stored under another tag, of a newer schema version
    /// than the key's, or of another kind reads as the default through the
    /// subscript, and ``SceneStore/value(for:)`` throws
    /// ``SceneStoreError/unreadableModel(key:tag:reason:)`` or
    /// ``SceneStoreError/newerModel(key:tag:stored:supported:)`` for it.
    /// `set` and `update` refuse to write over such a value, and so does a
    /// save holding the scene's lock, if another process stored one
    /// meanwhile (the store then takes the stored value and logs a
    /// warning): remove the key first to replace it on purpose.
    ///
    /// ## Upgrades
    /// A model stored by an older version is read through the key's
    /// `migrations` (``SceneModelMigration``), chained from its version to
    /// the key's; a version without a step of its own decodes as it is, so
    /// a version that only added an Optional property needs none.
    /// ``SceneStore/migrate(_:)`` writes the migrated model back under the
    /// scene's lock, and reading an older model starts the same in the
    /// background: every process then sees one version, and the migration
    /// runs once. A model of a *newer* version than the key's is never
    /// migrated down, never decoded and never written over: an older build
    /// of the app leaves its newer sibling's state alone.
    ///
    /// The tag is yours to keep stable: renaming the Swift type changes
    /// nothing stored; changing the tag makes earlier data unreadable on
    /// purpose.
    ///
    /// - Parameters:
    ///   - name: the scene key the model is stored under.
    ///   - tag: the tag written next to the model and required when reading it.
    ///   - version: the schema version written; stored data of a higher
    ///     version is refused.
    ///   - defaultValue: what the key reads while the scene holds nothing.
    ///   - migrations: how models of older versions become this one, one
    ///     step per version that changed the JSON.
    /// - Precondition: `tag` is not empty, `version` is at least 1, and
    ///   each migration reads a distinct version from 1 to `version - 1`
    ///   (programming errors, checked when the key is made).
    public init(
        _ name: String, tag: String, version: Int = 1, default defaultValue: Value,
        migrations: [SceneModelMigration] = []
    ) {
        let schema = ModelSchema(name: name, tag: tag, version: version, migrations: migrations)
        self.init(name, default: defaultValue, coding: SceneKeyCoding(
            read: { (stored) throws(SceneStoreError) in
                guard case .data(let data) = stored else {
                    throw .wrongType(key: name, stored: stored.kind.rawValue, expected: "a stored model")
                }
                let (model, migrated) = try ModelDocument.read(data, as: Value.self, schema)
                return (model, migrated.map(SceneValue.data))
            },
            write: { (model) throws(SceneStoreError) in .data(try ModelDocument.encode(model, schema)) },
            mayReplace: { ModelDocument.mayReplace($0, schema) }))
    }
}

/// The registration of a model key: what its documents carry and how
/// older ones are read.
struct ModelSchema: Sendable {
    let name: String
    let tag: String
    let version: Int
    let migrations: [SceneModelMigration]

    init(name: String, tag: String, version: Int, migrations: [SceneModelMigration]) {
        precondition(!tag.isEmpty, "SceneKey \(name): empty tag")
        precondition(version >= 1, "SceneKey \(name): version \(version) is below 1")
        for (index, migration) in migrations.enumerated() {
            precondition((1..<version).contains(migration.from),
                         "SceneKey \(name): a migration from version \(migration.from) in a key of version \(version)")
            precondition(!migrations[..<index].contains { $0.from == migration.from },
                         "SceneKey \(name): two migrations from version \(migration.from)")
        }
        self.name = name
        self.tag = tag
        self.version = version
        self.migrations = migrations.sorted { $0.from < $1.from }
    }
}
