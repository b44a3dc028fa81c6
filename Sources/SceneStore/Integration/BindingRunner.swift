import Observation

/// The loop every model binding runs, whatever it binds (properties with
/// ``SceneStore/bind(_:on:)``, a navigation path with SceneNavigation's
/// `PathBinding.bind`): it reconciles model and store after each change
/// of the model (tracked with Observation) and each change of the store
/// (`signals`), and it hands the model's edits over before the store
/// closes, before a ``stop()`` takes effect, and on ``flush()``.
///
/// The link supplies three closures, all run on the main actor:
/// `read` reads the bound properties (so Observation tracks them),
/// `reconcile` brings model and store together (saves the model's edit,
/// or shows what the store holds), and `handOver` reads the model now —
/// never relying on the Observation hop having run — and returns what
/// completes saving exactly that state (edits made later are not its
/// business: after a ``stop()`` they are not saved).
@MainActor
package final class BindingRunner {
    private let store: SceneStore
    private let read: @MainActor () -> Void
    /// The model, held weakly: while one of its changes waits for the next
    /// turn, that turn holds it, so a model released right after an edit
    /// (a window closing) still hands the edit over.
    private let model: WeakModel
    private let reconcile: @MainActor () -> Void
    private let handOver: @MainActor () -> @MainActor () async throws -> Void
    private var task: Task<Void, Never>?
    /// The hand-over a ``stop()`` started; a closing store waits for it.
    private var last: Task<Void, Never>?
    package private(set) var isStopped = false

    package init(
        store: SceneStore,
        model: AnyObject,
        read: @escaping @MainActor () -> Void,
        reconcile: @escaping @MainActor () -> Void,
        handOver: @escaping @MainActor () -> @MainActor () async throws -> Void
    ) {
        self.store = store
        self.model = WeakModel(model)
        self.read = read
        self.reconcile = reconcile
        self.handOver = handOver
    }

    /// Starts tracking the model and following `signals` (one element per
    /// change of the store that may concern the binding). The binding stops
    /// when the signals finish (the store closed) or at ``stop()``; until
    /// then the following task keeps the runner, so the handle `bind`
    /// returns need not be kept. A model released meanwhile (a window
    /// closing right after its last edit) still has that edit handed over
    /// at the store's close.
    package func start(following signals: AsyncStream<Void>) {
        store.bindingDrains.add(self)
        track()
        task = Task { @MainActor in
            for await _ in signals {
                guard !self.isStopped else { break }
                self.reconcile()
            }
            self.finishFollowing()
        }
    }

    /// Hands the model's edit to the store, then stops saving and
    /// following. A store that closes meanwhile waits for the hand-over.
    package func stop() {
        guard !isStopped else { return }
        let finish = handOver()
        isStopped = true
        task?.cancel()
        last = Task { @MainActor in
            try? await finish()
            self.store.bindingDrains.remove(self)
        }
    }

    /// Hands the model's edit to the store and makes it durable.
    package func flush() async throws {
        try await handOver()()
        try await store.flush()
    }

    /// Returns once the model's edits made so far are in the store (for a
    /// closing store); errors stay in the binding's `lastError`.
    func settle() async {
        if let last {
            await last.value
        } else {
            try? await handOver()()
        }
    }

    /// The signals ended: the store closed, or ``stop()`` cancelled them
    /// (then its hand-over removes the runner once done).
    private func finishFollowing() {
        guard last == nil else { return }
        isStopped = true
        store.bindingDrains.remove(self)
    }

    /// Reconciles after each change of a bound property, then tracks again
    /// (Observation reports one change per registration).
    private func track() {
        guard !isStopped else { return }
        let model = self.model
        withObservationTracking {
            read()
        } onChange: {
            // Called before the new value is stored: read it on the next
            // turn, keeping the model until then.
            let changed = model.retained()
            Task { @MainActor [weak self] in
                defer { _ = changed }
                guard let self, !self.isStopped else { return }
                self.reconcile()
                self.track()
            }
        }
    }
}

/// A bound model held weakly, read from Observation's change callback.
/// Models are main-actor objects and every use is on the main actor; the
/// box only carries the reference across the callback's `@Sendable` edge.
private final class WeakModel: @unchecked Sendable {
    private weak var model: AnyObject?

    init(_ model: AnyObject) {
        self.model = model
    }

    /// A strong reference for as long as the result lives.
    func retained() -> Retained { Retained(model: model) }

    struct Retained: @unchecked Sendable {
        let model: AnyObject?
    }
}
