import Foundation
import Observation

extension PathBinding {
    /// Binds `keyPath` of an `@Observable` model to the scene key: restores
    /// the stored path into the model now, saves whenever the model's path
    /// changes (tracked with Observation, no polling), and applies paths
    /// stored by other processes.
    ///
    /// - Returns: the running binding; it stops when ``BoundPath/stop()`` is
    ///   called, when it is deallocated, or when the store's streams finish.
    @MainActor
    public func bind<Model: Observable & AnyObject>(
        _ keyPath: ReferenceWritableKeyPath<Model, Path>, on model: Model
    ) -> BoundPath {
        if let restored = restore(), model[keyPath: keyPath] != restored.path {
            model[keyPath: keyPath] = restored.path
        }
        let empty = model[keyPath: keyPath]
        let bound = BoundPath()
        let tracker = ChangeTracker(binding: self, model: model, keyPath: keyPath, bound: bound)
        tracker.track()
        let external = externalChanges(empty: restore()?.path ?? empty)
        bound.task = Task { @MainActor [weak model] in
            for await decoded in external {
                guard let model, !bound.isStopped else { break }
                if model[keyPath: keyPath] != decoded.path { model[keyPath: keyPath] = decoded.path }
            }
        }
        return bound
    }
}

/// A running ``PathBinding/bind(_:on:)``.
@MainActor
public final class BoundPath {
    fileprivate var task: Task<Void, Never>?
    fileprivate private(set) var isStopped = false
    /// The last error saving the path met (for example a scene limit).
    public fileprivate(set) var lastError: (any Error)?

    fileprivate init() {}

    /// Stops saving and following; the model keeps its current path.
    public func stop() {
        isStopped = true
        task?.cancel()
    }

    isolated deinit {
        task?.cancel()
    }
}

/// Saves the model's path each time Observation reports a change, then
/// tracks again (Observation reports one change per registration).
@MainActor
private final class ChangeTracker<Model: Observable & AnyObject, Path: Equatable & Sendable> {
    let binding: PathBinding<Path>
    weak var model: Model?
    let keyPath: ReferenceWritableKeyPath<Model, Path>
    weak var bound: BoundPath?

    init(binding: PathBinding<Path>, model: Model, keyPath: ReferenceWritableKeyPath<Model, Path>, bound: BoundPath) {
        self.binding = binding
        self.model = model
        self.keyPath = keyPath
        self.bound = bound
    }

    func track() {
        guard let model, let bound, !bound.isStopped else { return }
        withObservationTracking {
            _ = model[keyPath: keyPath]
        } onChange: {
            // Called before the new value is stored: read it on the next turn.
            Task { @MainActor in self.saveAndTrackAgain() }
        }
    }

    private func saveAndTrackAgain() {
        guard let model, let bound, !bound.isStopped else { return }
        do {
            try binding.save(model[keyPath: keyPath])
        } catch {
            bound.lastError = error
        }
        track()
    }
}
