/// A typed key: a name, the value read while the scene holds none, and how
/// the value is stored. Every way to use a scene takes one: the subscript,
/// `set`, `update`, `values(for:)`, ``SceneStored`` and ``SceneProperty``.
///
/// Declare keys once, as static members, so that the name, the type and
/// the default are written in one place and call sites read
/// `store[.selectedTab]`:
///
/// ```swift
/// struct Layout: Codable, Sendable { var sidebarWidth = 240; var columns = 2 }
/// extension SceneKey where Value == Int {
///     static var selectedTab: Self { .init("selectedTab", default: 0) }
/// }
/// extension SceneKey where Value == Layout {
///     static var layout: Self { .init("layout", tag: "layout", default: Layout()) }
/// }
/// ```
///
/// A key of one of the six kinds (or an `Optional` or raw-value type of
/// one, see ``SceneStorable``) stores the value as it is. A key of a
/// `Codable` model stores it as JSON `Data` under a tag and a schema
/// version (see ``init(_:tag:version:default:migrations:)``). No other
/// type can make a key, so storing anything else does not compile.
public struct SceneKey<Value: Sendable>: Sendable {
    /// The name the value is stored under in the scene.
    public let name: String
    /// What the key reads while the scene holds nothing under ``name``
    /// (or a value the key cannot read).
    public let defaultValue: Value
    let coding: SceneKeyCoding<Value>

    /// A key of one of the six kinds, an `Optional` of one (`nil` removes
    /// the key), or a raw-value type declaring ``SceneStorable``.
    public init(_ name: String, default defaultValue: Value) where Value: SceneStorable {
        self.init(name, default: defaultValue, coding: .storable(name))
    }

    init(_ name: String, default defaultValue: Value, coding: SceneKeyCoding<Value>) {
        self.name = name
        self.defaultValue = defaultValue
        self.coding = coding
    }
}

/// How a key's value becomes a stored value and back.
struct SceneKeyCoding<Value: Sendable>: Sendable {
    /// The value `stored` holds, and for a model of an older schema the
    /// value of the key's schema to write back.
    /// - Throws: when the key cannot read `stored`.
    let read: @Sendable (SceneValue) throws(SceneStoreError) -> (value: Value, migrated: SceneValue?)
    /// The stored form of a value; `nil` removes the key.
    let write: @Sendable (Value) throws(SceneStoreError) -> SceneValue?
    /// Whether a value of this key may be written over `stored`; `nil`:
    /// always (plain values). A model key writes only over a model it
    /// reads, so that no reader loses what another tag or a newer schema
    /// left there.
    let mayReplace: (@Sendable (SceneValue?) -> Bool)?

    static func storable(_ name: String) -> Self where Value: SceneStorable {
        Self(
            read: { (stored) throws(SceneStoreError) in
                guard let value = Value(sceneValue: stored) else {
                    throw .wrongType(key: name, stored: stored.kind.rawValue, expected: "\(Value.self)")
                }
                return (value, nil)
            },
            write: { $0.sceneValue },
            mayReplace: nil)
    }
}
