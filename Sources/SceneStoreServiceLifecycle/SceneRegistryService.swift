import SceneStore
import ServiceLifecycle

/// A registry as a swift-service-lifecycle `Service`: it runs until the
/// service group shuts down gracefully (on SIGTERM from `systemctl stop`,
/// a logout's SIGHUP, whatever signals the group listens to), then closes
/// the registry. That is a quit: every edit made before is saved and every
/// window still open is kept for the next launch.
///
/// ```swift
/// let scenes = try await SceneRegistry(appID: "com.example.editor")
/// let group = ServiceGroup(
///     services: [SceneRegistryService(scenes), app],
///     gracefulShutdownSignals: [.sigterm, .sighup],
///     logger: logger)
/// try await group.run()
/// ```
///
/// Cancelled instead (the group torn down without a graceful shutdown),
/// it closes the registry all the same.
public struct SceneRegistryService: Service {
    /// The registry the service closes.
    public let registry: SceneRegistry

    /// A service that closes `registry` when the group shuts down.
    public init(_ registry: SceneRegistry) {
        self.registry = registry
    }

    public func run() async throws {
        try? await gracefulShutdown()
        try await registry.close()
    }
}
