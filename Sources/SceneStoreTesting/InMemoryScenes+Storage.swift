import Foundation
import Logging
import SceneStore

/// What every registry on one ``InMemoryScenes`` shares: the documents,
/// the scenes' locks and who to tell of a change.
final class MemoryMedium: Sendable {
    struct Scene: Sendable {
        var document: Data?
        var tombstone = false
        var quarantined: [Data] = []
        var locked = false
    }

    private struct State: Sendable {
        var scenes: [SceneID: Scene] = [:]
        var listeners: [UInt64: Listener] = [:]
        var nextListener: UInt64 = 0
    }

    struct Listener: Sendable {
        let owner: ObjectIdentifier
        let handler: @Sendable (SceneStorageEvent) -> Void
    }

    private let state = Locked(State())
    /// Tells listeners in order, off the caller's thread, as a watcher's
    /// thread would.
    private let announcements = DispatchQueue(label: "SceneStoreTesting.InMemoryScenes")

    func withScenes<Result>(_ body: (inout [SceneID: Scene]) -> Result) -> Result {
        state.withLock { body(&$0.scenes) }
    }

    /// Takes scene `id`'s lock if it is free.
    func tryLock(_ id: SceneID) -> Bool {
        state.withLock { state in
            guard state.scenes[id]?.locked != true else { return false }
            state.scenes[id, default: Scene()].locked = true
            return true
        }
    }

    func unlock(_ id: SceneID) {
        state.withLock { $0.scenes[id]?.locked = false }
    }

    func listen(owner: ObjectIdentifier, _ handler: @escaping @Sendable (SceneStorageEvent) -> Void) -> UInt64 {
        state.withLock { state in
            state.nextListener += 1
            state.listeners[state.nextListener] = Listener(owner: owner, handler: handler)
            return state.nextListener
        }
    }

    func stopListening(_ id: UInt64) {
        // Waits for an announcement in progress: no handler runs after this.
        announcements.sync { _ = state.withLock { $0.listeners.removeValue(forKey: id) } }
    }

    /// Tells every listener but `owner`'s that scene `id` changed.
    func announce(_ id: SceneID, from owner: ObjectIdentifier?) {
        announcements.async {
            let listeners = self.state.withLock { Array($0.listeners.values) }
            for listener in listeners where listener.owner != owner { listener.handler(.changed(id)) }
        }
    }
}

/// One registry's view of an ``InMemoryScenes``.
final class MemorySceneStorage: SceneStorage {
    let scenes: InMemoryScenes
    let limits: SceneRegistry.Limits
    let lockTimeout: Duration
    let clock: SceneClock

    init(scenes: InMemoryScenes, limits: SceneRegistry.Limits, lockTimeout: Duration, clock: SceneClock) {
        self.scenes = scenes
        self.limits = limits
        self.lockTimeout = lockTimeout
        self.clock = clock
    }

    var medium: MemoryMedium { scenes.medium }
    var sceneLocation: SceneLocation { .memory(scenes.name) }
    var readsAreLocal: Bool { true }

    func readBytes(_ id: SceneID, skip: ((DiskVersion) -> Bool)?) throws(SceneStoreError) -> StoredDocument {
        StoredDocument(medium.withScenes { $0[id]?.document }, skip: skip, limits: limits)
    }

    func transaction<Result>(
        _ id: SceneID, _ body: (any SceneStorageTransaction) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        let start = clock.now
        var pause: UInt32 = 50
        while !medium.tryLock(id) {
            guard clock.now - start < lockTimeout else {
                throw .lockTimeout(scene: id.rawValue, holderPID: getpid(), waited: lockTimeout)
            }
            usleep(pause)
            pause = min(pause * 2, 2000)
        }
        let transaction = MemoryTransaction(storage: self, id: id)
        defer {
            medium.unlock(id)
            if transaction.changed.withLock({ $0 }) { medium.announce(id, from: ObjectIdentifier(self)) }
        }
        return try await body(transaction)
    }

    /// Offered, as a database offers it: the store's saves then take the
    /// path a PostgreSQL storage's take, one step when nothing changed.
    var replacesConditionally: Bool { true }

    func replace(_ id: SceneID, with document: Data, ifCurrent version: DiskVersion) throws(SceneStoreError) -> Bool {
        guard medium.tryLock(id) else { return false }
        let replaced = medium.withScenes { scenes in
            guard let stored = scenes[id]?.document, SceneFile.peekVersion(stored) == version else { return false }
            scenes[id]?.document = document
            return true
        }
        medium.unlock(id)
        if replaced { medium.announce(id, from: ObjectIdentifier(self)) }
        return replaced
    }

    func sceneIDs() throws(SceneStoreError) -> [SceneID] {
        scenes.sceneIDs
    }

    func scenesWithLeftovers() -> Set<SceneID> { [] }

    func watch(
        _ preference: FileWatcherPreference, logger: Logger,
        handler: @escaping @Sendable (SceneStorageEvent) -> Void
    ) -> (any SceneStorageWatch)? {
        guard preference != .none else { return nil }
        return MemoryWatch(medium: medium, id: medium.listen(owner: ObjectIdentifier(self), handler))
    }
}

/// One scene's document while its lock is held.
private final class MemoryTransaction: SceneStorageTransaction, Sendable {
    let storage: MemorySceneStorage
    let id: SceneID
    /// Whether the document or its tombstone changed (others are told).
    let changed = Locked(false)

    init(storage: MemorySceneStorage, id: SceneID) {
        self.storage = storage
        self.id = id
    }

    private func update<Result>(_ body: (inout MemoryMedium.Scene) -> Result) -> Result {
        changed.withLock { $0 = true }
        return storage.medium.withScenes { body(&$0[id, default: MemoryMedium.Scene()]) }
    }

    func readBytes(skip: ((DiskVersion) -> Bool)?) throws(SceneStoreError) -> StoredDocument {
        try storage.readBytes(id, skip: skip)
    }

    func write(_ document: Data) throws(SceneStoreError) {
        update { $0.document = document }
    }

    func removeScene() throws(SceneStoreError) {
        update { $0.document = nil }
    }

    func writeTombstone(incarnation: String) throws(SceneStoreError) {
        update { $0.tombstone = true }
    }

    func hasTombstone() throws(SceneStoreError) -> Bool {
        storage.medium.withScenes { $0[id]?.tombstone ?? false }
    }

    func removeTombstone() throws(SceneStoreError) {
        storage.medium.withScenes { $0[id]?.tombstone = false }
    }

    func quarantine(reason: String) throws(SceneStoreError) -> String {
        let count = update { scene -> Int in
            if let document = scene.document { scene.quarantined.append(document) }
            scene.document = nil
            return scene.quarantined.count
        }
        return "\(storage.location), quarantine of \(id.rawValue), #\(count) (\(reason))"
    }

    func removeLeftovers() {}
}

private struct MemoryWatch: SceneStorageWatch {
    let medium: MemoryMedium
    let id: UInt64

    var kind: FileWatcherKind { .inMemory }

    func cancel() {
        medium.stopListening(id)
    }
}
