/// The registry of element types a ``ScenePath`` may be written with and read
/// back into, each under a stable string tag.
///
/// The tag is what the encoded form stores next to each element's JSON; on
/// the way back, a tag is resolved *only* by looking it up here. A tag that no
/// registration claims is never turned into a type by name, so file contents
/// cannot make the program instantiate a type it did not list.
///
/// ```swift
/// let types = ScenePathTypes([
///     .init(Int.self),                 // tag "int"
///     .init(String.self),              // tag "string"
///     .init(Book.self, tag: "book"),
/// ])
/// ```
///
/// ## Tags
/// Pass an explicit tag for your own types. Without one:
/// * common standard types get a fixed short tag: `bool`, `int`, `int8` ...
///   `int64`, `uint`, `uint8` ... `uint64`, `float`, `double`, `string`,
///   `uuid`, `url`, `date`, `data`;
/// * any other type gets its unqualified name as `String(describing:)` writes
///   it (`"Book"`, `"Box<Int>"`), computed once, when the registration is made.
///
/// A derived tag is only as stable as the type's name: renaming the type (or
/// changing its generic arguments) changes the tag, and paths saved under the
/// old tag then decode as "unknown tag". If that happens, register the type
/// with the old name as an alias (see "Renamed tags"). An explicit tag also overrides a
/// standard one: `.init(Int.self, tag: "number")`.
///
/// ## Renamed tags
/// When a tag has to change (a derived tag after a rename, or a tag you
/// chose better), keep the old one as an alias, so paths stored by earlier
/// releases keep restoring:
///
/// ```swift
/// .init(Album.self, tag: "album", aliases: ["Record"])
/// ```
///
/// An alias is only read: elements are written under the tag, so the
/// next save stores the new tag. An earlier release that does not know
/// the new tag keeps such an element aside and writes it back untouched,
/// as it does any element it cannot restore.
///
/// ## Uniqueness
/// Each tag or alias belongs to one type and each type has one tag.
/// Listing the same type with the same tag twice is harmless; anything
/// else is a programming error and traps when the registry is created.
public struct ScenePathTypes: Sendable {
    private let byTag: [String: Registration]
    /// Each registration by its type (read by the tests too).
    let byType: [ObjectIdentifier: Registration]
    /// The records of its types encoded and decoded lately.
    let memo = RecordMemo()

    /// Creates a registry.
    ///
    /// - Parameter registrations: The element types and their tags.
    /// - Precondition: Every tag and alias is non-empty, no tag or alias is
    ///   claimed by two types, and no type is registered under two tags.
    public init(_ registrations: [Registration]) {
        var byTag: [String: Registration] = [:]
        var byType: [ObjectIdentifier: Registration] = [:]
        for registration in registrations {
            for tag in [registration.tag] + registration.aliases {
                precondition(!tag.isEmpty, "ScenePathTypes: \(registration.typeName) has an empty tag or alias")
                if let existing = byTag[tag] {
                    precondition(
                        existing.typeID == registration.typeID,
                        "ScenePathTypes: tag \"\(tag)\" is claimed by both \(existing.typeName) and \(registration.typeName)"
                    )
                }
            }
            if let existing = byType[registration.typeID] {
                precondition(
                    existing.tag == registration.tag,
                    "ScenePathTypes: \(registration.typeName) is registered under both \"\(existing.tag)\" and \"\(registration.tag)\""
                )
            }
            for tag in [registration.tag] + registration.aliases { byTag[tag] = registration }
            byType[registration.typeID] = registration
        }
        self.byTag = byTag
        self.byType = byType
    }

    /// The registration for the dynamic type of `element`.
    func registration(forTypeOf element: any ScenePathElement) -> Registration? {
        byType[ObjectIdentifier(Swift.type(of: element))]
    }

    /// The registration claiming `tag`.
    func registration(forTag tag: String) -> Registration? {
        byTag[tag]
    }
}

extension ScenePathTypes {
    /// One element type and the tag it is stored under.
    public struct Registration: Sendable {
        /// The tag written next to each element of this type.
        let tag: String
        /// Older tags that also read as this type (never written).
        let aliases: [String]

        let typeID: ObjectIdentifier

        /// The type's qualified name, for messages only (never for lookup).
        let typeName: String

        /// Decodes the `value` of an element record as this type.
        let decodeValue: @Sendable (KeyedDecodingContainer<PathDocument.RecordKey>) throws -> any ScenePathElement

        /// Registers a type.
        ///
        /// - Parameters:
        ///   - type: The element type.
        ///   - tag: The tag to store it under. When `nil`, a standard tag or
        ///     the type's unqualified name, as described in
        ///     ``ScenePathTypes``; prefer an explicit tag for your own types.
        ///   - aliases: tags this type was stored under by earlier
        ///     releases; read as this type, never written.
        public init<Value: ScenePathElement>(_ type: Value.Type, tag: String? = nil, aliases: [String] = []) {
            self.tag = tag ?? ScenePathTypes.defaultTag(for: type)
            self.aliases = aliases
            typeID = ObjectIdentifier(type)
            typeName = String(reflecting: type)
            decodeValue = { container in
                try container.decode(Value.self, forKey: .value)
            }
        }
    }
}
