/// A running ``SceneStore/bind(_:on:)``.
@MainActor
public final class BoundModel {
    var task: Task<Void, Never>?
    private let link: any StoppableLink

    /// The last error a save of the model met (a value or scene over its
    /// limit, a closed store); cleared by the next accepted change.
    public var lastError: SceneStoreError? { link.lastError }

    init(link: any StoppableLink) {
        self.link = link
    }

    /// Stops saving and following; the model keeps its current values.
    public func stop() {
        link.stop()
        task?.cancel()
    }

    isolated deinit {
        link.stop()
        task?.cancel()
    }
}

/// What ``BoundModel`` needs of the link it runs, whatever the model type.
@MainActor
protocol StoppableLink: AnyObject {
    var lastError: SceneStoreError? { get }
    func stop()
}
