import Observation

/// The model, the store, and what the binding knows the store holds, for
/// ``SceneStore/bind(_:on:)``. Everything runs on the main actor, one step
/// at a time.
@MainActor
final class ModelLink<Model: Observable & AnyObject> {
    let store: SceneStore
    private weak var model: Model?
    private let properties: [BoundProperty<Model>]
    /// Per key, the value the model showed last as the store's: a model
    /// value that differs is an edit to save.
    private var synced: [String: SceneValue?] = [:]
    private(set) var lastError: SceneStoreError?

    init(store: SceneStore, model: Model, properties: [SceneProperty<Model>]) {
        self.store = store
        self.model = model
        self.properties = properties.map { $0.bind(model, store) }
    }

    /// Restores the stored values into the model.
    func restore() {
        guard let model else { return }
        for bound in properties { show(bound, in: model) }
    }

    /// Reads every bound property, so that Observation tracks them.
    func read() {
        guard let model else { return }
        for bound in properties { bound.access(model) }
    }

    /// Brings model and store together, property by property: saves the
    /// model's edit if it has one, else shows what the store holds now.
    func reconcile() {
        guard let model else { return }
        for bound in properties {
            do throws(SceneStoreError) {
                let value = try bound.stored(model)
                if let known = synced[bound.name], known == value {
                    show(bound, in: model)
                    continue
                }
                try bound.save(model)
                synced[bound.name] = value
                lastError = nil
            } catch {
                lastError = error
                store.logger.warning("model change refused; the property shows the stored value again", metadata: [
                    "scene": "\(store.id)", "key": "\(bound.name)", "error": "\(error)",
                ])
                show(bound, in: model)
            }
        }
    }

    private func show(_ bound: BoundProperty<Model>, in model: Model) {
        bound.show(model)
        synced[bound.name] = try? bound.stored(model)
    }
}
