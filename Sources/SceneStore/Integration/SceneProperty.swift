/// One stored property of a model and the ``SceneKey`` that keeps it, for
/// ``SceneStore/bind(_:on:)``.
///
/// ```swift
/// store.bind([
///     SceneProperty(\.selectedTab, key: .selectedTab),
///     SceneProperty(\.layout, key: .layout),     // a Codable model's key
/// ], on: settings)
/// ```
///
/// While the scene holds nothing under the key (or a value the key cannot
/// read), the property shows the key's default. Any key works: one of the
/// six kinds, an `Optional` or raw-value type of one, or a `Codable` model.
@MainActor
public struct SceneProperty<Model: AnyObject> {
    /// The name of the key the property is kept under.
    let name: String
    /// Binds the property of `model` to `store`.
    let bind: (Model, SceneStore) -> BoundProperty<Model>

    /// Keeps `keyPath` under `key`.
    public init<Value>(_ keyPath: ReferenceWritableKeyPath<Model, Value>, key: SceneKey<Value>) {
        name = key.name
        bind = { model, store in
            let stored = { (model: Model) throws(SceneStoreError) in try key.coding.write(model[keyPath: keyPath]) }
            return BoundProperty(
                name: key.name,
                access: { _ = $0[keyPath: keyPath] },
                stored: stored,
                save: { (model) throws(SceneStoreError) in try store.set(model[keyPath: keyPath], for: key) },
                show: { model in
                    let value = store[key]
                    if (try? key.coding.write(value)) != (try? stored(model)) { model[keyPath: keyPath] = value }
                })
        }
    }
}

/// A property bound to its store's key.
@MainActor
struct BoundProperty<Model: AnyObject> {
    /// The name of the key.
    let name: String
    /// Reads the property, for observation tracking.
    let access: (Model) -> Void
    /// The property's value as stored (`nil`: no value).
    let stored: (Model) throws(SceneStoreError) -> SceneValue?
    /// Sets the key from the property.
    let save: (Model) throws(SceneStoreError) -> Void
    /// Shows the key's value (or its default) in the property, unless it
    /// already shows it.
    let show: (Model) -> Void
}
