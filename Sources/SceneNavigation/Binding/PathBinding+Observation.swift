import Foundation
import Observation

extension PathBinding {
    /// Binds `keyPath` of an `@Observable` model to the scene key: restores
    /// the stored path into the model now, saves each change of the model's
    /// path (tracked with Observation, no polling), and shows every other
    /// change of the key, from this process or another, and every discard.
    ///
    /// What it promises:
    /// * It writes only the model's own edits, never a path it just applied
    ///   (no echo), so it never writes an older path over a newer one.
    /// * It applies the latest stored path: a burst of changes applies once.
    /// * A removed key or a discarded scene shows as the codec's empty path.
    /// * Stored elements this process cannot restore are kept in the store
    ///   in place (see ``BoundPath/keptAside``) and never erased by a save.
    /// * A model edit that meets a newer stored path is saved as an edit of
    ///   it (see ``save(_:from:)``), and the model then shows the result.
    ///
    /// Runs on the main actor.
    ///
    /// - Returns: the running binding; it stops when ``BoundPath/stop()`` is
    ///   called, when it is deallocated, or when the store closes.
    @MainActor
    public func bind<Model: Observable & AnyObject>(
        _ keyPath: ReferenceWritableKeyPath<Model, Path>, on model: Model
    ) -> BoundPath {
        // Subscribed before reading, so that no change falls in between.
        let signals = changeSignals(includingLocal: true)
        let bound = BoundPath()
        let link = BoundLink(binding: self, model: model, keyPath: keyPath, bound: bound)
        link.start()
        bound.task = Task { @MainActor in
            for await _ in signals {
                guard !bound.isStopped else { break }
                link.reconcile()
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

    /// The last error saving the path met (for example a scene limit, or a
    /// ``PathBindingError`` when the key holds a path this process cannot
    /// read); cleared by the next successful save.
    public fileprivate(set) var lastError: (any Error)?

    /// The elements of the stored path this process could not restore, one
    /// description each (unknown tag, no longer decodes, no longer exists).
    /// They are not in the model; the binding keeps them in the store, in
    /// place, and only a pop below them takes them out.
    public fileprivate(set) var keptAside: [String] = []

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

/// The model, the store and what this binding knows the store holds.
/// Everything runs on the main actor, one step at a time.
@MainActor
private final class BoundLink<Model: Observable & AnyObject, Path: Equatable & Sendable> {
    let binding: PathBinding<Path>
    weak var model: Model?
    let keyPath: ReferenceWritableKeyPath<Model, Path>
    weak var bound: BoundPath?
    /// The path the store holds as far as this binding knows: the model
    /// showed it or wrote it. A model path that differs is an edit to save.
    private var synced: Path

    init(binding: PathBinding<Path>, model: Model, keyPath: ReferenceWritableKeyPath<Model, Path>, bound: BoundPath) {
        self.binding = binding
        self.model = model
        self.keyPath = keyPath
        self.bound = bound
        synced = model[keyPath: keyPath]
    }

    /// Restores the stored path into the model, then tracks the model.
    func start() {
        if let restored = binding.restore() { show(restored) }
        track()
    }

    /// Brings model and store together: saves the model's edit if it has
    /// one, else shows what the store holds now.
    func reconcile() {
        guard let model, let bound, !bound.isStopped else { return }
        let path = model[keyPath: keyPath]
        guard path == synced else {
            save(path)
            return
        }
        if let current = binding.current(empty: binding.emptyPath) { show(current) }
    }

    private func save(_ path: Path) {
        do {
            let stored = try binding.write(path, from: synced)
            bound?.lastError = nil
            show(stored)
        } catch {
            bound?.lastError = error
            // The edit cannot be saved; keep following the store.
            synced = path
        }
    }

    private func show(_ decoded: PathCodec<Path>.Decoded) {
        synced = decoded.path
        bound?.keptAside = decoded.dropped
        if let model, model[keyPath: keyPath] != decoded.path {
            model[keyPath: keyPath] = decoded.path
        }
    }

    /// Reconciles after each change of the model's path, then tracks again
    /// (Observation reports one change per registration).
    private func track() {
        guard let model, let bound, !bound.isStopped else { return }
        withObservationTracking {
            _ = model[keyPath: keyPath]
        } onChange: {
            // Called before the new value is stored: read it on the next turn.
            Task { @MainActor in
                self.reconcile()
                self.track()
            }
        }
    }
}
