/// A property kept in one key of a scene, read and written like a plain
/// variable — `@SceneStorage` for code outside SwiftUI, with the store
/// named explicitly:
///
/// ```swift
/// @SceneStored("selectedTab", store: store) var selectedTab = 0
/// selectedTab = 2                                    // memory now, disk soon
/// try $selectedTab.set(3)                            // the same, throwing when refused
/// let next = try await $selectedTab.update { $0 + 1 } // atomic across processes
/// for await tab in $selectedTab.values { render(tab) }
/// ```
///
/// The initial value is the default: what the property reads while the
/// scene holds nothing under the key, or holds a value of another kind
/// there. Reading never touches the disk; it shows the latest value the
/// store has, including what another process wrote.
///
/// `Value` is one of the six kinds (Bool, Int, Double, String, URL, Data),
/// an `Optional` of one (assigning `nil` removes the key), or a
/// `RawRepresentable` type whose raw value is one of them and that declares
/// ``SceneStorable`` conformance. Any other type does not compile.
///
/// **A refused assignment is not silent.** Assigning through the property
/// cannot throw, so when the store refuses the value (a value or scene over
/// its limit, an invalid key, a closed store) the assignment logs a warning
/// through the registry's logger and the property keeps its old value. Use
/// ``set(_:)`` on the projected value (`try $selectedTab.set(value)`) to get
/// the ``SceneStoreError`` instead.
///
/// The wrapper holds no state of its own: every copy, and every other
/// wrapper or caller of the same store and key, sees the same value.
@propertyWrapper
public struct SceneStored<Value: SceneStorable>: Sendable {
    /// The store the value lives in.
    public let store: SceneStore
    /// The key it lives under.
    public let key: String
    /// What the property reads while the scene holds no value of its kind.
    public let defaultValue: Value

    /// Keeps the property under `key` in `store`, reading `wrappedValue`
    /// while the scene holds nothing there.
    public init(wrappedValue: Value, _ key: String, store: SceneStore) {
        self.store = store
        self.key = key
        self.defaultValue = wrappedValue
    }

    /// Keeps the property under a typed key, reading its default while the
    /// scene holds nothing there.
    public init(_ key: SceneKey<Value>, store: SceneStore) {
        self.init(wrappedValue: key.defaultValue, key.name, store: store)
    }

    /// The stored value, or the default. Setting it sets the key (an empty
    /// Optional removes it); a value the store refuses is logged as a
    /// warning and the old value stays.
    public var wrappedValue: Value {
        get { store.value(forKey: key, default: defaultValue) }
        nonmutating set {
            do {
                try set(newValue)
            } catch {
                store.logger.warning("assignment refused; the property keeps its old value", metadata: [
                    "scene": "\(store.id)", "key": "\(key)", "error": "\(error)",
                ])
            }
        }
    }

    /// The wrapper itself: `$property.set(_:)`, `$property.values`,
    /// `$property.update(_:)`.
    public var projectedValue: Self { self }

    /// Sets the value in memory and schedules a save, as
    /// ``SceneStore/set(_:forKey:)``.
    ///
    /// - Throws: ``SceneStoreError/invalidKey(_:limit:)``,
    ///   ``SceneStoreError/valueTooLarge(key:size:limit:)``,
    ///   ``SceneStoreError/sceneTooLarge(scene:key:size:limit:)`` or
    ///   ``SceneStoreError/closed(scene:)``; nothing is changed then.
    public func set(_ value: Value) throws(SceneStoreError) {
        try store.set(value, forKey: key)
    }

    /// Removes the stored value; the property reads the default again.
    public func remove() {
        store.removeValue(forKey: key)
    }

    /// The value now, then each new value, local or from another process;
    /// latest only. See ``SceneStore/values(forKey:default:)``.
    public var values: AsyncStream<Value> {
        store.values(forKey: key, default: defaultValue)
    }

    /// Replaces the value with `transform` of the latest one under the
    /// scene lock, across threads and processes, and returns it once it is
    /// durable. See ``SceneStore/update(forKey:default:_:)``.
    @discardableResult
    public func update(_ transform: @escaping @Sendable (Value) throws -> Value) async throws -> Value {
        try await store.update(forKey: key, default: defaultValue, transform)
    }
}
