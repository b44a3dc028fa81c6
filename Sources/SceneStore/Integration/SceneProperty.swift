/// One stored property of a model and the scene key that keeps it, for
/// ``SceneStore/bind(_:on:)``.
///
/// ```swift
/// store.bind([
///     SceneProperty(\.selectedTab, forKey: "selectedTab"),
///     SceneProperty(\.query, forKey: "query"),
///     SceneProperty(\.sidebar, key: .sidebar),
/// ], on: settings)
/// ```
///
/// The property's type follows the rules of ``SceneStorable``: one of the
/// six kinds, an `Optional` of one (`nil` removes the key), or a
/// raw-value type declaring `SceneStorable`. Any other type does not compile.
@MainActor
public struct SceneProperty<Model: AnyObject> {
    /// The key the property is kept under.
    public let key: String
    /// The property's value as stored (`nil`: no value).
    let read: (Model) -> SceneValue?
    /// Prepares the property of `model` for binding to `store`: captures
    /// the value it shows while the key holds nothing, and returns the
    /// function that shows a stored value (or its absence) in the model.
    let prepare: (Model, SceneStore) -> (Model, SceneValue?) -> Void

    /// Keeps `keyPath` under `key`. While the scene holds nothing there (or
    /// a value of another kind), the property shows the value it had when
    /// it was bound, as `@SceneStorage` shows its initial value.
    public init<Value: SceneStorable>(_ keyPath: ReferenceWritableKeyPath<Model, Value>, forKey key: String) {
        self.init(keyPath, name: key, default: nil)
    }

    /// Keeps `keyPath` under a typed key. While the scene holds nothing
    /// there (or a value of another kind), the property shows the key's
    /// default.
    public init<Value: SceneStorable>(_ keyPath: ReferenceWritableKeyPath<Model, Value>, key: SceneKey<Value>) {
        self.init(keyPath, name: key.name, default: key.defaultValue)
    }

    private init<Value: SceneStorable>(
        _ keyPath: ReferenceWritableKeyPath<Model, Value>, name: String, default fixedDefault: Value?
    ) {
        key = name
        read = { model in model[keyPath: keyPath].sceneValue }
        prepare = { model, store in
            let fallback = fixedDefault ?? model[keyPath: keyPath]
            return { model, stored in
                let value = stored.flatMap { store.convert($0, forKey: name) as Value? } ?? fallback
                if value.sceneValue != model[keyPath: keyPath].sceneValue {
                    model[keyPath: keyPath] = value
                }
            }
        }
    }
}
