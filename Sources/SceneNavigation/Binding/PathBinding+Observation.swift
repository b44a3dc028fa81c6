import Foundation
import Observation
import SceneStore

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
    /// * Each model edit is committed under the scene lock as an edit of
    ///   the path on disk at that instant (see ``commit(_:from:)``), so two
    ///   processes pushing at the same moment both keep their element; the
    ///   model then shows the result. Edits made while a commit is running
    ///   are gathered into the next one, rebased onto what is stored then:
    ///   another window's pushes are never dropped.
    /// * Every edit the model made before the store's `close()` began, or
    ///   before ``BoundPath/stop()``, is committed: both read the model
    ///   itself rather than wait for the next Observation turn.
    ///
    /// Runs on the main actor.
    ///
    /// - Returns: a handle on the running binding. The binding runs until
    ///   ``BoundPath/stop()`` is called or the store closes (a model released
    ///   before has its last edit committed then): discarding the handle
    ///   does not stop it.
    @MainActor @discardableResult
    public func bind<Model: Observable & AnyObject>(
        _ keyPath: ReferenceWritableKeyPath<Model, Path>, on model: Model
    ) -> BoundPath {
        // Subscribed before reading, so that no change falls in between.
        let signals = store.changeSignals(for: [key])
        let bound = BoundPath()
        let link = BoundLink(binding: self, model: model, keyPath: keyPath, bound: bound)
        let runner = BindingRunner(store: store, model: model, read: link.read, reconcile: link.reconcile, handOver: link.handOver)
        link.runner = runner
        bound.runner = runner
        link.restore()
        runner.start(following: signals)
        return bound
    }
}

/// A running ``PathBinding/bind(_:on:)``: stop it, flush it, read what it
/// met. The binding runs whether this handle is kept or not.
@MainActor
public final class BoundPath {
    fileprivate var runner: BindingRunner?

    /// The last error saving the path met (for example a scene limit, or
    /// the ``ScenePathError`` of a stored path this process cannot read);
    /// cleared by the next successful save.
    public fileprivate(set) var lastError: (any Error)?

    /// The elements of the stored path this process could not restore
    /// (unknown tag, no longer decodes, no longer exists), as the last
    /// restore or commit listed them. They are not in the model; the
    /// binding keeps them in the store, in place, and only a pop below them
    /// takes them out.
    public fileprivate(set) var keptAside: [DroppedElement] = []

    fileprivate init() {}

    /// Saves the model's edit, if it has one, then stops saving and
    /// following; the model keeps its current path. A `close()` of the
    /// store that begins meanwhile waits for that save.
    public func stop() {
        runner?.stop()
    }

    /// Commits the model's current path (read from the model, without
    /// waiting for the next Observation turn) and returns once it is
    /// durable.
    /// - Throws: what committing met (as ``PathBinding/commit(_:from:)``
    ///   throws) or the store's save errors.
    public func flush() async throws {
        try await runner?.flush()
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
    weak var runner: BindingRunner?
    /// The path the store holds as far as this binding knows: the model
    /// showed it or wrote it. A model path that differs is an edit to save.
    private var synced: Path
    /// The commit running, if any; reconciling waits for it to end.
    private var committing: Task<Void, Never>?
    /// The model's path as last read: what to hand over once the model is
    /// gone (a window released right after its last edit).
    private var latest: Path
    /// Why the last commit failed, if it did.
    private var failure: (any Error)?
    /// When the retry after a passing failure is due, while one is.
    private var retryDue: Duration?
    /// The last model path a commit saved (the store may hold more: other
    /// windows' pushes, rebased in).
    private var committed: Path?

    init(binding: PathBinding<Path>, model: Model, keyPath: ReferenceWritableKeyPath<Model, Path>, bound: BoundPath) {
        self.binding = binding
        self.model = model
        self.keyPath = keyPath
        self.bound = bound
        synced = model[keyPath: keyPath]
        latest = synced
    }

    /// Restores the stored path into the model.
    func restore() {
        if let restored = binding.restore() { show(restored) }
    }

    /// Reads the model's path, so that Observation tracks it.
    func read() {
        _ = model?[keyPath: keyPath]
    }

    private var isFollowing: Bool { runner.map { !$0.isStopped } ?? false }

    /// Brings model and store together: saves the model's edit if it has
    /// one, else shows what the store holds now.
    func reconcile() {
        guard isFollowing else { return }
        let path = model?[keyPath: keyPath] ?? latest
        latest = path
        guard committing == nil else { return }
        guard path == synced else {
            // After a passing failure the edit waits for its retry.
            if retryDue == nil { commit(path) }
            return
        }
        if model != nil, let current = binding.current() { show(current) }
    }

    /// Reads the model's path now and returns what commits exactly that
    /// path, stopped or not: it waits for the commit running, then commits
    /// the path unless the store has it already. When a commit cannot get
    /// through for a passing reason (a lock held too long), the path is
    /// put in the store's memory instead, which the store's next save or
    /// closing flush writes.
    func handOver() -> @MainActor () async throws -> Void {
        let path = model?[keyPath: keyPath] ?? latest
        latest = path
        return { try await self.commitAndWait(path) }
    }

    /// - Throws: why `path` was refused.
    private func commitAndWait(_ path: Path) async throws {
        while let committing { await committing.value }
        // Shown or committed: the store has it (a commit's result may
        // differ from `path`: other windows' pushes rebased in).
        guard path != synced, path != committed else { return }
        failure = nil
        commit(path)
        while let committing { await committing.value }
        guard let failure else { return }
        guard Self.isTransient(failure) else { throw failure }
        show(try binding.write(path, from: synced))
    }

    /// Commits the model's edit from `synced` to `path` under the scene
    /// lock, then shows the result unless the model moved on meanwhile
    /// (that edit, made from `path`, is committed next and rebased onto
    /// what is stored then: see `PathRebase`).
    private func commit(_ path: Path) {
        let base = synced
        synced = path
        committing = Task { @MainActor in
            do {
                let stored = try await binding.commitDecoded(path, from: base)
                committed = path
                retryDue = nil
                bound?.lastError = nil
                if let model, model[keyPath: keyPath] == path {
                    show(stored)
                } else {
                    bound?.keptAside = stored.dropped
                }
            } catch {
                failure = error
                bound?.lastError = error
                if Self.isTransient(error) {
                    // Not refused, only not saved yet (a lock held too long,
                    // a disk or server that comes back): the edit stays
                    // pending and is tried again, never dropped.
                    synced = base
                    retryLater()
                }
                // Otherwise the edit cannot be saved; keep following the store.
            }
            committing = nil
            reconcile()
        }
    }

    /// Whether a failed commit may succeed if tried again.
    private static func isTransient(_ error: any Error) -> Bool {
        switch error as? SceneStoreError {
        case .lockTimeout?, .io?, .storageUnavailable?: true
        default: false
        }
    }

    /// Reconciles again in a second of the store's clock (after a
    /// transient failure).
    private func retryLater() {
        let clock = binding.store.clock
        // Fixed now, with the failure: a clock that moves on before the
        // task starts cannot push the retry back.
        let due = clock.now + .seconds(1)
        retryDue = due
        Task { @MainActor [weak self] in
            try? await clock.sleep(until: due)
            guard let self, retryDue == due else { return }
            retryDue = nil
            reconcile()
        }
    }

    private func show(_ decoded: RestoredPath<Path>) {
        synced = decoded.path
        bound?.keptAside = decoded.dropped
        if let model {
            latest = decoded.path
            if model[keyPath: keyPath] != decoded.path { model[keyPath: keyPath] = decoded.path }
        }
    }
}
