import Foundation
import SceneStore

/// Scenes kept in memory, for an app's own tests: no disk, no watcher
/// thread, no temporary directory to clean.
///
/// Every registry opened on one `InMemoryScenes` behaves as another process
/// opening the same scene root: each has its own stores and writer
/// identity, saves merge under the scene's lock, discards leave a
/// tombstone, and each registry hears the others' saves at once. What a
/// registry flushed survives its ``crash(_:)`` and is there for the next
/// registry (a relaunch).
///
/// ```swift
/// let scenes = InMemoryScenes()
/// let first = scenes.registry()
/// try first.store(for: "main").set(3, forKey: "tab")
/// try await first.close()
/// let relaunched = scenes.registry()
/// #expect(try relaunched.store(for: "main").value(forKey: "tab", default: 0) == 3)
/// ```
///
/// Same rules as a scene root otherwise: documents are checked against the
/// registry's limits, a damaged one (see ``replaceDocument(of:with:)``) is
/// moved aside (``quarantined(_:)``) and the scene starts again.
public final class InMemoryScenes: Sendable {
    /// Names the memory in `SceneLocation.memory(_:)` and in messages.
    public let name: String
    let medium: MemoryMedium

    public init(name: String = "scenes") {
        self.name = name
        medium = MemoryMedium()
    }

    /// A new registry on these scenes: another "process".
    public func registry(configuration: SceneRegistry.Configuration = .testing) -> SceneRegistry {
        SceneRegistry(inMemory: self, configuration: configuration)
    }

    /// Drops `registry` as `kill -9` would its process: nothing not yet
    /// flushed is saved, its streams finish, it can no longer be used.
    public func crash(_ registry: SceneRegistry) {
        registry.abandon()
    }

    /// The ids of the scenes that have a document, sorted.
    public var sceneIDs: [SceneID] {
        medium.withScenes { scenes in scenes.compactMap { $0.value.document == nil ? nil : $0.key }.sorted() }
    }

    /// The stored document of scene `id` (the bytes of a scene file), or
    /// `nil` when it has none.
    public func document(of id: SceneID) -> Data? {
        medium.withScenes { $0[id]?.document }
    }

    /// Replaces the stored document of scene `id` as an outsider would (a
    /// damaged or a hand-written document; `nil` deletes it, leaving no
    /// tombstone, as a file deleted by hand). Every registry is told.
    public func replaceDocument(of id: SceneID, with document: Data?) {
        medium.withScenes { $0[id, default: MemoryMedium.Scene()].document = document }
        medium.announce(id, from: nil)
    }

    /// The damaged documents of scene `id` moved aside, oldest first.
    public func quarantined(_ id: SceneID) -> [Data] {
        medium.withScenes { $0[id]?.quarantined ?? [] }
    }
}

extension SceneRegistry {
    /// A registry on `scenes`, kept in memory (see ``InMemoryScenes``).
    public convenience init(inMemory scenes: InMemoryScenes, configuration: Configuration = .testing) {
        let clock = SceneClock(configuration.clock)
        let storage = MemorySceneStorage(
            scenes: scenes, limits: configuration.limits, lockTimeout: configuration.lockTimeout, clock: clock)
        self.init(storage: storage, configuration: configuration, clock: clock)
    }
}
