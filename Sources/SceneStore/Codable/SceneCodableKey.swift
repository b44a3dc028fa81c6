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
/// A model stored by an older version decodes with the current type: make
/// properties added since Optional, or decode them with `decodeIfPresent`.
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

    /// Declares a key.
    ///
    /// - Precondition: `tag` is not empty and `version` is at least 1
    ///   (programming errors, checked when the key is made).
    public init(_ name: String, tag: String, version: Int = 1, default defaultValue: Model) {
        precondition(!tag.isEmpty, "SceneCodableKey \(name): empty tag")
        precondition(version >= 1, "SceneCodableKey \(name): version \(version) is below 1")
        self.name = name
        self.tag = tag
        self.version = version
        self.defaultValue = defaultValue
    }
}
