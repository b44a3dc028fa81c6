/// A property kept under a ``SceneKey`` of a scene, read and written like
/// a plain variable — `@SceneStorage` for code outside SwiftUI, with the
/// store named explicitly:
///
/// ```swift
/// @SceneStored(.selectedTab, store: store) var selectedTab: Int
/// selectedTab = 2                                     // memory now, disk soon
/// try $selectedTab.set(3)                             // the same, throwing when refused
/// let next = try await $selectedTab.update { $0 += 1 } // atomic across processes
/// for await tab in $selectedTab.values { print(tab) }
/// ```
///
/// The property reads the key's default while the scene holds nothing
/// under the key, or a value the key cannot read. Reading never touches
/// the disk; it shows the latest value the store has, including what
/// another process wrote. Any key works: one of the six kinds, an
/// `Optional` or raw-value type of one, or a `Codable` model.
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
public struct SceneStored<Value: Sendable>: Sendable {
    let store: SceneStore
    let key: SceneKey<Value>

    /// Keeps the property under `key` in `store`, reading the key's default
    /// while the scene holds nothing there.
    public init(_ key: SceneKey<Value>, store: SceneStore) {
        self.store = store
        self.key = key
    }

    /// Keeps the property under `key`, by name, reading `wrappedValue`
    /// while the scene holds nothing there (for the package's tests).
    package init(wrappedValue: Value, _ key: String, store: SceneStore) where Value: SceneStorable {
        self.init(SceneKey(key, default: wrappedValue), store: store)
    }

    /// The stored value, or the default. Setting it sets the key (an empty
    /// Optional removes it); a value the store refuses is logged as a
    /// warning and the old value stays.
    public var wrappedValue: Value {
        get { store[key] }
        nonmutating set {
            do {
                try set(newValue)
            } catch {
                store.logger.warning("assignment refused; the property keeps its old value", metadata: [
                    "scene": "\(store.id)", "key": "\(key.name)", "error": "\(error)",
                ])
            }
        }
    }

    /// The wrapper itself: `$property.set(_:)`, `$property.values`,
    /// `$property.update(_:)`.
    public var projectedValue: Self { self }

    /// Sets the value in memory and schedules a save, as
    /// ``SceneStore/set(_:for:)``.
    ///
    /// - Throws: what ``SceneStore/set(_:for:)`` throws; nothing is
    ///   changed then.
    public func set(_ value: Value) throws(SceneStoreError) {
        try store.set(value, for: key)
    }

    /// The value now, then each new value, local or from another process;
    /// latest only. See ``SceneStore/values(for:)``.
    public var values: AsyncStream<Value> {
        store.values(for: key)
    }

    /// Changes the value with `transform` under the scene lock, across
    /// threads and processes, and returns it once it is durable. See
    /// ``SceneStore/update(_:_:)``.
    @discardableResult
    public func update(_ transform: @escaping @Sendable (inout Value) throws -> Void) async throws -> Value {
        try await store.update(key, transform)
    }
}
