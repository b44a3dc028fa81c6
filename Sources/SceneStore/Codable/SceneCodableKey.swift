/// A key that keeps a `Codable` model as JSON `Data`, the way
/// `@SceneStorage` users keep models — registered under a stable tag and a
/// schema version, so that reading never guesses a type.
///
/// ```swift
/// struct Layout: Codable, Sendable { var sidebarWidth = 240; var columns = 2 }
/// extension SceneCodableKey where Model == Layout {
///     static var layout: Self { .init("layout", tag: "layout", version: 1, default: Layout()) }
/// }
/// try store.encode(Layout(sidebarWidth: 300), for: .layout)
/// let layout = try store.decode(.layout)                    // Layout() while the key is empty
/// try await store.update(.layout) { $0.columns += 1 }        // atomic across processes
/// ```
///
/// The stored `Data` is a small JSON document naming the tag and version
/// next to the model's own JSON:
/// `{"format":"scenestore.model","tag":"layout","value":{…},"version":1}`.
/// It is still one of the six kinds (Data), not a seventh.
///
/// ## The registered-type rule
/// The key is the registration: a stored model is decoded only as the
/// model of a key whose tag it carries, never as a type named by the data.
/// Reading a value stored under another tag, of a newer schema version
/// than the key's, or of another kind, throws a ``SceneCodableError`` and
/// changes nothing; ``SceneStore/encode(_:for:)`` and
/// ``SceneStore/update(_:_:)-(SceneCodableKey<Model>,_)`` refuse to write over such a value.
///
/// ## Upgrades
/// A model stored by an older version is read through the key's
/// ``migrations`` (``SceneModelMigration``), chained from its version to
/// the key's; a version without a step of its own decodes as it is, so a
/// version that only added an Optional property needs none. When
/// ``SceneStore/decode(_:)`` reads an older model it also writes the
/// migrated one back, under the scene's lock, unless the stored value
/// changed meanwhile: every process then sees one version, and the
/// migration runs once. A model of a *newer* version than the key's is
/// never migrated down, never decoded and never written over (not even
/// by a save of this process that was planned before the newer model
/// arrived): an older build of the app leaves its newer sibling's state
/// alone.
///
/// The tag is yours to keep stable: renaming the Swift type changes
/// nothing stored; changing the tag makes earlier data unreadable on
/// purpose.
public struct SceneCodableKey<Model: Codable & Sendable>: Sendable {
    /// The scene key the model is stored under.
    public let name: String
    /// The tag written next to the model and required when reading it.
    public let tag: String
    /// The schema version written; stored data of a higher version is refused.
    public let version: Int
    /// What ``SceneStore/decode(_:)`` returns while the key holds nothing.
    public let defaultValue: Model
    /// The steps from older schema versions, by the version each reads.
    public let migrations: [SceneModelMigration]

    /// Declares a key.
    ///
    /// - Parameters:
    ///   - name: the scene key the model is stored under.
    ///   - tag: the tag written next to the model and required when reading it.
    ///   - version: the schema version written; stored data of a higher
    ///     version is refused.
    ///   - defaultValue: what ``SceneStore/decode(_:)`` returns while the
    ///     key holds nothing.
    ///   - migrations: how models of older versions become this one, one
    ///     step per version that changed the JSON.
    /// - Precondition: `tag` is not empty, `version` is at least 1, and
    ///   each migration reads a distinct version from 1 to `version - 1`
    ///   (programming errors, checked when the key is made).
    public init(
        _ name: String, tag: String, version: Int = 1, default defaultValue: Model,
        migrations: [SceneModelMigration] = []
    ) {
        precondition(!tag.isEmpty, "SceneCodableKey \(name): empty tag")
        precondition(version >= 1, "SceneCodableKey \(name): version \(version) is below 1")
        for (index, migration) in migrations.enumerated() {
            precondition((1..<version).contains(migration.from),
                         "SceneCodableKey \(name): a migration from version \(migration.from) in a key of version \(version)")
            precondition(!migrations[..<index].contains { $0.from == migration.from },
                         "SceneCodableKey \(name): two migrations from version \(migration.from)")
        }
        self.name = name
        self.tag = tag
        self.version = version
        self.defaultValue = defaultValue
        self.migrations = migrations.sorted { $0.from < $1.from }
    }
}
