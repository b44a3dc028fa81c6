import Foundation
import SystemPackage
import Logging

/// Owns one root directory and hands out one ``SceneStore`` per scene id.
///
/// ```swift
/// let scenes = try SceneRegistry(appID: "com.example.editor")
/// let store = try await scenes.store(for: "main")
/// try store.set(2, for: .selectedTab)   // extension SceneKey where Value == Int { static var selectedTab … }
/// try await scenes.close()
/// ```
///
/// Several processes (or registries) may open the same root: each watches
/// it and reloads what the others write; saves merge under a lock so no
/// write is lost. Call ``close()`` before exiting to flush.
public final class SceneRegistry: Sendable {
    package let configuration: Configuration

    let storage: any SceneStorage
    /// The windows' records, a scene of ``storage``.
    let windows: WindowRecords
    /// `configuration.clock`, read by every store of the registry.
    /// The configuration, clock and writer, shared by every store.
    private let settings: StoreSettings
    private let watch: (any SceneStorageWatch)?
    let state: Locked<State>

    struct State: Sendable {
        var stores: [SceneID: SceneStore] = [:]
        var closed = false
        /// The window scenes this registry holds (newScene, reopen).
        var claims: [SceneID: any SceneClaim] = [:]
        /// Set when the watcher gave up (and nothing took over).
        var watcherLost = false
    }

    /// Opens (creating it with mode 0700 if needed) the registry at `root`.
    /// A read-only registry (``Configuration/readOnly``) creates nothing: its root may be
    /// missing (it then holds no scenes).
    /// The root is made, its lock file opened and the inotify watch added
    /// on a thread of the library's own, never on the caller's.
    /// - Throws: ``SceneStoreError/io(syscall:path:errno:)`` when the root
    ///   cannot be created or is not a directory.
    public convenience init(root: URL, configuration: Configuration = Configuration()) async throws {
        try await self.init(root: root, configuration: configuration, system: LiveFileSystem())
    }

    /// The registry at `root` with every system call on its files made
    /// through `system`.
    package convenience init(
        root: URL, configuration: Configuration, system: any FileSystem
    ) async throws(SceneStoreError) {
        let root = root.standardizedFileURL
        let writable = !configuration.readOnly
        let clock = SceneClock(configuration.clock)
        let directory = SceneDirectory(
            root: root, lockTimeout: configuration.lockTimeout, clock: clock, system: system, cleansLeftovers: writable)
        let (mode, marked) = try await directory.onOwnThread { () throws(SceneStoreError) in
            if writable { try directory.prepare() }
            // Marked before any scene is read (see SceneDirectory.markOpen).
            return (directory.looseMode(), !writable || directory.markOpen())
        }
        if let mode {
            configuration.logger.warning("scene root is accessible to other users; SceneStore creates it 0700", metadata: [
                "root": "\(root.path)", "mode": "\(String(mode, radix: 8))",
            ])
        }
        if !marked {
            configuration.logger.warning("cannot mark the scene root as open; another process's discard may take a scene's tombstone from this one", metadata: [
                "root": "\(root.path)",
            ])
        }
        await self.init(storage: directory, configuration: configuration, clock: clock)
    }

    /// Opens a registry whose scenes live in `storage` (see
    /// ``SceneStorage``).
    /// - Parameter clock: `configuration.clock` as the storage reads it,
    ///   when it does; wrapped anew otherwise.
    package init(storage: any SceneStorage, configuration: Configuration, clock: SceneClock? = nil) async {
        self.settings = StoreSettings(
            configuration: configuration, clock: clock ?? SceneClock(configuration.clock), writer: WriterIdentity.current())
        self.configuration = configuration
        self.storage = storage
        self.windows = WindowRecords(storage: storage, logger: configuration.logger, readOnly: configuration.readOnly)
        let state = Locked(State())
        self.state = state
        let logger = configuration.logger
        self.watch = await storage.watch(configuration.watcher, logger: logger) { event in
            Self.route(event, to: state, logger: logger)
        }
    }

    /// Opens the registry in the XDG state directory of `appID`:
    /// `$XDG_STATE_HOME/<appID>/scenes`, else `~/.local/state/<appID>/scenes`.
    /// - Throws: ``SceneStoreError/invalidSceneID(_:reason:)`` for an app id
    ///   that is not a plain file name (the rules of a scene id), or what
    ///   ``init(root:configuration:)`` throws.
    public convenience init(appID: String, configuration: Configuration = Configuration()) async throws {
        try await self.init(root: Self.defaultRoot(appID: appID), configuration: configuration)
    }

    /// Where ``init(appID:configuration:)`` keeps scenes.
    /// - Throws: ``SceneStoreError/invalidSceneID(_:reason:)`` for an app id
    ///   that is not a plain file name (same rules as a scene id).
    package static func defaultRoot(
        appID: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        _ = try SceneID(appID)
        let base: URL
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = URL(fileURLWithPath: state, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local/state", isDirectory: true)
        }
        return base.appendingPathComponent(appID, isDirectory: true)
            .appendingPathComponent("scenes", isDirectory: true)
    }

    /// Where the scenes are, for people: a directory's path, or a
    /// database's URL without the password.
    package var location: String { storage.location }

    /// The watcher in use (`nil` if none could start, or it stopped and
    /// nothing took over: changes by other processes are then merged only
    /// when saving).
    public var watcherKind: WatcherKind? {
        state.withLock { $0.watcherLost } ? nil : watch?.kind
    }

    /// The store of scene `id`, loaded from disk on first use; the same
    /// instance for the same id afterwards.
    ///
    /// - Throws: ``SceneStoreError/closed(scene:)``,
    ///   ``SceneStoreError/unsupportedFormat(scene:version:path:)`` for a file
    ///   written by a newer SceneStore (left untouched), or an I/O error.
    ///   A damaged file is not an error: it is moved to `quarantine/`, the
    ///   scene starts empty and ``SceneStore/lastQuarantined`` says so.
    ///
    /// The first call for an id reads the scene (waiting, at most the lock
    /// timeout, for another process's lock when the document must be looked
    /// at under it); calls for the same id made meanwhile wait for that one
    /// reading and share its result: a scene is never loaded twice.
    public func store(for id: SceneID) async throws -> SceneStore {
        try await open(id)
    }

    /// The store of scene `id`; the id is validated first.
    package func store(for id: String) async throws -> SceneStore {
        try await open(SceneID(id))
    }

    /// ``store(for:)`` for synchronous code (set-up in
    /// `main.swift`, an initializer): it blocks the calling thread while
    /// the scene is read. What follows a suspension (a database's answer, a
    /// wait for the scene's lock) runs on the store's queue and a thread of
    /// the library's own, never on Swift's cooperative pool, which a
    /// blocked caller may be occupying. In `async` code, `await`
    /// ``store(for:)`` instead.
    @available(*, noasync, message: "await store(for:) instead")
    public func blockingStore(for id: SceneID) throws -> SceneStore {
        try BlockingCall.wait { () async throws(SceneStoreError) in try await self.open(id) }
    }

    /// ``blockingStore(for:)`` with the id validated first.
    @available(*, noasync, message: "await store(for:) instead")
    package func blockingStore(for id: String) throws -> SceneStore {
        try blockingStore(for: SceneID(id))
    }

    private func open(_ id: SceneID) async throws(SceneStoreError) -> SceneStore {
        let (store, created) = try state.withLock { (state) throws(SceneStoreError) in
            guard !state.closed else { throw .closed(scene: nil) }
            if let existing = state.stores[id] { return (existing, false) }
            let store = SceneStore(
                id: id, storage: storage, settings: settings,
                watcherKind: { [weak self] in self?.watcherKind })
            state.stores[id] = store
            return (store, true)
        }
        guard created else {
            try await store.awaitLoad()
            return store
        }
        do throws(SceneStoreError) {
            try await store.load()
        } catch {
            // The next call tries again with a store of its own.
            state.withLock { state in
                if state.stores[id] === store { state.stores[id] = nil }
            }
            throw error
        }
        // Events that arrived while it loaded were not applied: read once
        // more (usually a no-op).
        store.scheduleReload()
        return store
    }

    /// The scenes that have a document, sorted (none for a read-only
    /// registry whose root does not exist).
    public func sceneIDs() async throws -> [SceneID] {
        try await listScenes()
    }

    private func listScenes() async throws(SceneStoreError) -> [SceneID] {
        do {
            return try await storage.sceneIDs()
        } catch .io(_, _, .noSuchFileOrDirectory) where configuration.readOnly {
            return []
        }
    }

    /// Deletes a scene's state, like discarding a scene session. Open
    /// streams of the scene, here and in other processes, get a
    /// `.discarded` event and go on; the store stays usable and a later
    /// set creates the scene again. Edits another process had not saved
    /// yet survive there (they may come after the discard) and are saved
    /// as the scene's new contents. A window scene nobody holds
    /// (restorable) is closed for good instead (``closeForGood(_:)``): it
    /// would only reopen empty.
    public func discard(_ id: SceneID) async throws {
        guard try await !closeIfRestorable(id) else { return }
        try await store(for: id).discard()
    }

    /// Flushes every store, finishes their streams and stops watching.
    /// Later calls to ``store(for:)`` throw. Idempotent.
    /// - Throws: the first flush error, after closing everything anyway.
    public func close() async throws {
        let (stores, alreadyClosed) = state.withLock { state -> ([SceneStore], Bool) in
            defer { state.closed = true }
            return (state.closed ? [] : Array(state.stores.values), state.closed)
        }
        watch?.cancel()
        var firstError: (any Error)?
        for store in stores {
            do { try await store.close() } catch { firstError = firstError ?? error }
        }
        // Quitting keeps every window this process holds to be reopened
        // (after its edits were saved above).
        await letGoOfWindows(quitting: true)
        if !alreadyClosed {
            await storage.close()
        }
        if let firstError { throw firstError }
    }

    /// Drops every store without saving, as if the process were killed.
    package func abandon() {
        let stores = state.withLock { state -> [SceneStore] in
            defer { state.closed = true }
            return Array(state.stores.values)
        }
        watch?.cancel()
        for store in stores { store.abandon() }
        // As if the process died: the claims go, the records say "open".
        let claims = state.withLock { state in
            defer { state.claims = [:] }
            return Array(state.claims.values)
        }
        for claim in claims { claim.abandon() }
        storage.release()
    }

    deinit {
        watch?.cancel()
    }

    /// Runs on the watcher's thread: tells the store the event is about
    /// that its scene may have changed; the store decides where to re-read it.
    private static func route(_ event: SceneStorageEvent, to state: Locked<State>, logger: Logger) {
        switch event {
        case .changed(let id):
            state.withLock { $0.stores[id] }?.sceneMayHaveChanged()
        case .rescan:
            for store in state.withLock({ Array($0.stores.values) }) {
                store.scheduleReload()
            }
        case .unavailable(let reason):
            logger.warning("file watcher stopped; changes by other processes are merged only when saving", metadata: [
                "reason": "\(reason)",
            ])
            let stores = state.withLock { state in
                state.watcherLost = true
                return Array(state.stores.values)
            }
            for store in stores { store.scheduleReload() }
        }
    }
}
