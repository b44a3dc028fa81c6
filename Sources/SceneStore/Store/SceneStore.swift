import Foundation
import Logging

/// The key-value store of one scene: Bool, Int, Double, String, URL and
/// Data values (see ``SceneStorable``) that survive relaunch and stay in
/// sync with other processes that open the same scene.
///
/// Get one from ``SceneRegistry/store(for:)``; the registry hands out
/// the same instance for the same scene id. Reads and writes are synchronous
/// and never touch the disk: ``set(_:for:)`` updates memory and schedules
/// a save on the store's own queue, as the registry's
/// ``SceneRegistry/Configuration/savePolicy`` says. ``flush()`` returns once
/// everything set before it is durable.
///
/// Thread safety: every method may be called from any thread or task.
public final class SceneStore: Sendable {
    /// The scene this store holds.
    public let id: SceneID

    let storage: any SceneStorage
    /// What every store of the registry shares, kept once.
    private let settings: StoreSettings
    var configuration: SceneRegistry.Configuration { settings.configuration }
    /// The registry's clock: save coalescing and back-off run on it, and
    /// the bindings' retries.
    package var clock: SceneClock { settings.clock }
    var writer: WriterIdentity { settings.writer }
    let state: Locked<StoreState>
    /// Used on ``io`` only; its lock is never contended.
    let encoder: Locked<SceneFileEncoder>
    /// Every storage operation of this store runs here, one at a time;
    /// created claimed by the store's load.
    let io: StoreExecutor
    let watcherKindProvider: @Sendable () -> WatcherKind?
    /// The model bindings on this store, settled before it closes.
    package let bindingDrains = BindingDrains()

    /// The logger the registry was configured with; SceneNavigation logs
    /// through it too.
    package var logger: Logger { configuration.logger }

    init(
        id: SceneID,
        storage: any SceneStorage,
        settings: StoreSettings,
        watcherKind: @escaping @Sendable () -> WatcherKind?
    ) {
        self.id = id
        self.storage = storage
        self.encoder = Locked(SceneFileEncoder())
        self.settings = settings
        self.state = Locked(StoreState(savePolicy: settings.configuration.savePolicy, phase: .loading))
        self.io = StoreExecutor(label: "SceneStore.io.\(id.rawValue)", claimed: true, executor: storage.workExecutor)
        self.watcherKindProvider = watcherKind
    }

    // MARK: Reading

    /// The value behind `key`, or the key's default while the scene holds
    /// nothing there or a value the key cannot read (another kind, a model
    /// of another tag or a newer schema; logged at debug level).
    /// Synchronous; never waits for the disk.
    public subscript<Value>(key: SceneKey<Value>) -> Value {
        read(state.withLock { $0.values[key.name] }, for: key)
    }

    /// The value behind `key`, or the key's default while the scene holds
    /// nothing there; unlike the subscript, it says why a stored value
    /// cannot be read.
    /// - Throws: ``SceneStoreError/wrongType(key:stored:expected:)``,
    ///   ``SceneStoreError/unreadableModel(key:tag:reason:)`` or
    ///   ``SceneStoreError/newerModel(key:tag:stored:supported:)``.
    public func value<Value>(for key: SceneKey<Value>) throws(SceneStoreError) -> Value {
        try decoded(state.withLock { $0.values[key.name] }, for: key)
    }

    /// What `stored` holds as `key`'s value (its default for nothing); a
    /// model of an older schema starts its migration.
    private func decoded<Value>(_ stored: SceneValue?, for key: SceneKey<Value>) throws(SceneStoreError) -> Value {
        guard let stored else { return key.defaultValue }
        let (value, migrated) = try key.coding.read(stored)
        if migrated != nil { startMigration(of: key) }
        return value
    }

    /// What `stored` reads as through `key` (its default when it cannot).
    func read<Value>(_ stored: SceneValue?, for key: SceneKey<Value>) -> Value {
        do throws(SceneStoreError) {
            return try decoded(stored, for: key)
        } catch {
            logger.debug("unreadable value read; returning the default", metadata: [
                "scene": "\(id)", "key": "\(key.name)", "error": "\(error)",
            ])
            return key.defaultValue
        }
    }

    /// The value for `key`, or `defaultValue` when the scene has none or
    /// holds another kind of value there. For the package's tools and
    /// tests, which address keys by name; apps use a ``SceneKey``.
    package func value<Value: SceneStorable>(forKey key: String, default defaultValue: Value) -> Value {
        self[SceneKey(key, default: defaultValue)]
    }

    /// The value for `key`, or `nil` when absent or of another kind.
    package func value<Value: SceneStorable>(forKey key: String, as type: Value.Type = Value.self) -> Value? {
        self[SceneKey<Value?>(key, default: nil)]
    }

    /// The value stored for `key`, of whatever kind (for generic tools).
    package func value(forKey key: String, as type: SceneValue.Type) -> SceneValue? {
        state.withLock { $0.values[key] }
    }

    /// All values, as stored.
    public var snapshot: [String: SceneValue] {
        state.withLock { $0.values }.dictionary
    }

    /// The generation of the scene file this store last read or wrote
    /// (0 before the scene has a file).
    package var generation: UInt64 {
        state.withLock { $0.disk.generation }
    }

    /// The file watcher keeping this store in sync with other processes,
    /// or `nil` when none could be started (changes from other processes
    /// are then seen only when they are merged at the next save).
    package var watcherKind: WatcherKind? { watcherKindProvider() }

    /// Why the last save failed, or `nil` when the last save succeeded (or
    /// none failed yet). A failing background save is reported once through
    /// a ``SceneUpdate/saveFailed(_:)`` event and a warning, then retried
    /// with growing pauses, unless it cannot succeed by retrying (a file of
    /// a newer format); the next `set` or ``flush()`` tries again.
    public var lastSaveError: SceneStoreError? {
        state.withLock { $0.lastSaveError }
    }

    /// The last damaged file of this scene that was moved to quarantine.
    public var lastQuarantined: QuarantinedScene? {
        state.withLock { $0.lastQuarantined }
    }

    // MARK: Writing

    /// Sets the value behind `key` in memory and schedules a save. Setting
    /// `nil` (an empty Optional) removes the key.
    ///
    /// A model key refuses to write over a value it cannot read (another
    /// kind, another tag, a newer schema), so that no reader silently loses
    /// what a writer stored; remove the key first to replace such a value
    /// on purpose.
    ///
    /// - Throws: ``SceneStoreError/invalidKey(_:limit:)``,
    ///   ``SceneStoreError/valueTooLarge(key:size:limit:)``,
    ///   ``SceneStoreError/sceneTooLarge(scene:key:size:limit:)``,
    ///   ``SceneStoreError/closed(scene:)``,
    ///   ``SceneStoreError/readOnly(scene:)``, or for a model key what
    ///   ``value(for:)`` throws for the stored value and
    ///   ``SceneStoreError/unencodableModel(key:tag:reason:)``; nothing is
    ///   changed then.
    public func set<Value>(_ value: Value, for key: SceneKey<Value>) throws(SceneStoreError) {
        if let mayReplace = key.coding.mayReplace, let stored = state.withLock({ $0.values[key.name] }), !mayReplace(stored) {
            _ = try key.coding.read(stored)
        }
        try apply(key: key.name, value: key.coding.write(value), replacing: key.coding.mayReplace)
    }

    /// Removes the value behind `key` (a no-op if absent, closed or
    /// read-only); the key reads its default again.
    public func removeValue<Value>(for key: SceneKey<Value>) {
        removeValue(forKey: key.name)
    }

    /// Sets `value` for `key`, by name (for the package's tools and tests).
    package func set<Value: SceneStorable>(_ value: Value, forKey key: String) throws(SceneStoreError) {
        try apply(key: key, value: value.sceneValue)
    }

    /// Sets a value of whatever kind for `key`, by name (for generic tools
    /// such as `scenes set`); `nil` removes it.
    package func set(_ value: SceneValue?, forKey key: String) throws(SceneStoreError) {
        try apply(key: key, value: value)
    }

    /// Removes the value for `key`, by name (a no-op if absent, invalid,
    /// closed or read-only).
    package func removeValue(forKey key: String) {
        do {
            try apply(key: key, value: nil)
        } catch {
            logger.debug("remove ignored", metadata: ["scene": "\(id)", "key": "\(key)", "error": "\(error)"])
        }
    }

    /// Why `key` cannot be stored: empty, longer than `limit` UTF-8 bytes,
    /// or holding a NUL; `nil` when it is fine. Applied to `set` and to
    /// every key loaded from a file.
    static func keyProblem(_ key: String, limit: Int) -> String? {
        let bytes = key.utf8
        if bytes.isEmpty { return "empty" }
        if bytes.count > limit { return "\(bytes.count) UTF-8 bytes, above the limit \(limit)" }
        let nul = bytes.withContiguousStorageIfAvailable { $0.contains(0) } ?? bytes.contains(0)
        if nul { return "contains NUL" }
        return nil
    }

    /// - Parameter scheduling: whether the save schedule hears of the edit
    ///   (not when the caller saves it at once, holding the lock).
    /// - Parameter replaces: whether the edit may replace what the scene
    ///   holds under `key` when it is saved (`nil`: always); checked again
    ///   holding the lock, over the document as it is then.
    /// - Parameter expected: apply only if memory still holds this value
    ///   for `key` (an update's transform ran on it).
    /// - Returns: `false` when memory held another value (nothing applied).
    @discardableResult
    func apply(
        key: String, value: SceneValue?, scheduling: Bool = true,
        replacing replaces: (@Sendable (SceneValue?) -> Bool)? = nil,
        ifStill expected: SceneValue?? = .none
    ) throws(SceneStoreError) -> Bool {
        guard !configuration.readOnly else { throw .readOnly(scene: id.rawValue) }
        let limits = configuration.limits
        guard Self.keyProblem(key, limit: limits.maxKeyBytes) == nil else {
            throw .invalidKey(key, limit: limits.maxKeyBytes)
        }
        if let value, value.byteCount > limits.maxValueBytes {
            throw .valueTooLarge(key: key, size: value.byteCount, limit: limits.maxValueBytes)
        }
        let action = try mutate { (state) throws(SceneStoreError) -> SaveSchedule.Action? in
            if case .some(let expected) = expected, state.values[key] != expected { return nil }
            guard try state.applyLocal(
                key: key, value: value, sceneLimit: limits.maxSceneBytes, scene: id, replacing: replaces) else { return SaveSchedule.Action.none }
            return scheduling ? state.saves.edited(at: clock.now) : .none
        }
        guard let action else { return false }
        perform(action)
        return true
    }
}

/// The configuration, clock and writer identity of a registry, which each
/// of its stores reads: one object for all of them rather than a copy in
/// each (the configuration alone is some 200 bytes).
final class StoreSettings: Sendable {
    let configuration: SceneRegistry.Configuration
    let clock: SceneClock
    let writer: WriterIdentity

    init(configuration: SceneRegistry.Configuration, clock: SceneClock, writer: WriterIdentity) {
        self.configuration = configuration
        self.clock = clock
        self.writer = writer
    }
}
