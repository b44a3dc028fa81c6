/// A running ``SceneStore/bind(_:on:)``: stop it, flush it, read its last
/// error. The binding runs whether this handle is kept or not.
@MainActor
public final class BoundModel {
    let runner: BindingRunner
    private let lastErrorOfLink: @MainActor () -> SceneStoreError?

    /// The last error a save of the model met (a value or scene over its
    /// limit, a closed store); cleared by the next accepted change.
    public var lastError: SceneStoreError? { lastErrorOfLink() }

    init(lastError: @escaping @MainActor () -> SceneStoreError?, runner: BindingRunner) {
        lastErrorOfLink = lastError
        self.runner = runner
    }

    /// Saves the model's edit, if it has one, then stops saving and
    /// following; the model keeps its current values.
    public func stop() {
        runner.stop()
    }

    /// Hands the model's current values to the store (without waiting for
    /// the next Observation turn) and returns once they are durable.
    /// - Throws: the store's save errors (``SceneStore/flush()``).
    public func flush() async throws {
        try await runner.flush()
    }
}
