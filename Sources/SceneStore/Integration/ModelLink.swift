import Observation

/// The model, the store, and what the binding knows the store holds, for
/// ``SceneStore/bind(_:on:)``. Everything runs on the main actor, one step
/// at a time.
@MainActor
final class ModelLink<Model: Observable & AnyObject>: ErrorReportingLink {
    private struct Bound {
        let property: SceneProperty<Model>
        let show: (Model, SceneValue?) -> Void
    }

    let store: SceneStore
    private weak var model: Model?
    private let properties: [Bound]
    /// Per key, the value the model showed last as the store's: a model
    /// value that differs is an edit to save.
    private var synced: [String: SceneValue?] = [:]
    private(set) var lastError: SceneStoreError?

    init(store: SceneStore, model: Model, properties: [SceneProperty<Model>]) {
        self.store = store
        self.model = model
        self.properties = properties.map { Bound(property: $0, show: $0.prepare(model, store)) }
    }

    /// Restores the stored values into the model.
    func restore() {
        guard let model else { return }
        for bound in properties { show(bound, in: model) }
    }

    /// Reads every bound property, so that Observation tracks them.
    func read() {
        guard let model else { return }
        for bound in properties { _ = bound.property.read(model) }
    }

    /// Brings model and store together, property by property: saves the
    /// model's edit if it has one, else shows what the store holds now.
    func reconcile() {
        guard let model else { return }
        for bound in properties {
            let key = bound.property.key
            let value = bound.property.read(model)
            if let known = synced[key], known == value {
                show(bound, in: model)
                continue
            }
            do {
                try store.set(value, forKey: key)
                synced[key] = value
                lastError = nil
            } catch {
                lastError = error
                store.logger.warning("model change refused; the property shows the stored value again", metadata: [
                    "scene": "\(store.id)", "key": "\(key)", "error": "\(error)",
                ])
                show(bound, in: model)
            }
        }
    }

    private func show(_ bound: Bound, in model: Model) {
        let key = bound.property.key
        bound.show(model, store.value(forKey: key, as: SceneValue.self))
        synced[key] = bound.property.read(model)
    }
}
