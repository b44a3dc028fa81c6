import Foundation
import Logging

/// The file root as a ``SceneStorage``: the scene's byte of the root's
/// lock file (``RootLock``) is the
/// transaction's lock; a save appends a record to the scene's log, and a
/// whole document is written by an atomic, durable exchange.
extension SceneDirectory: SceneStorage {
    var location: String { rootPath }

    func location(of id: SceneID) -> String { scenePath(id) }

    /// Waits for the previous versions still to unlink (a closed registry
    /// leaves no side file but tombstones), then lets go of the locks on
    /// the root's queue.
    func close() async {
        await withCheckedContinuation { done in Self.cleanupQueue.async { done.resume() } }
        await onOwnThread { locks.close() }
    }

    /// Lets go of the registry's locks, its mark on the root among them.
    func release() {
        locks.close()
    }

    func read(_ id: SceneID, after cursor: LogPosition?) throws(SceneStoreError) -> StoredDocument {
        try read(id, after: cursor, holdingLock: false)
    }

    func transaction<Result>(
        _ id: SceneID, _ body: (any SceneStorageTransaction) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        let lock = try lock(.scene(id))
        defer { lock.unlock() }
        let result = try await body(FileTransaction(directory: self, id: id))
        // A scene whose file sync failed is not trusted to a later sync.
        if unsyncedScenes.withLock({ $0.contains(id) }) { try rewrite(id) }
        // A save that found its values already on disk (written by one that
        // failed at the root's sync) writes nothing, but is durable only
        // once the root's names are.
        if directoryUnsynced.withLock({ $0 }) { try syncDirectory() }
        return result
    }

    /// Writes scene `id`'s file whole again, as it reads now, after a sync
    /// of it failed; until that succeeds, the scene is in
    /// ``unsyncedScenes``. Call holding the scene's lock.
    func rewrite(_ id: SceneID) throws(SceneStoreError) {
        do {
            if case .bytes(let document) = try read(id, after: nil, holdingLock: true) {
                discardPrevious(try write(document, for: id))
            }
            unsyncedScenes.withLock { _ = $0.remove(id) }
        } catch {
            unsyncedScenes.withLock { _ = $0.insert(id) }
            throw error
        }
    }

    /// The record appended when the scene is free and its log still ends
    /// in `base` (SceneDirectory+Appending.swift).
    func commit(
        _ id: SceneID, _ record: SceneFileRecord, over base: SceneFile, using writing: SaveWriting
    ) throws(SceneStoreError) -> Commit {
        guard !unsyncedScenes.withLock({ $0.contains(id) }), let lock = try lockIfFree(.scene(id)) else { return .refused }
        defer { lock.unlock() }
        let (frame, sizeLimit) = writing.encoder.withLock { $0.frame(of: record, over: base) }
        let position = writing.appending(frame.count, generation: record.generation, over: base.version)
        return try append(frame, to: id, over: base.version, from: position, sizeLimit: sizeLimit) ? .appended : .refused
    }

    /// inotify (libinotifytools, the process's one watcher thread) on the
    /// root; with `.automatic`, where inotify cannot serve, at the start or
    /// later (its limits, the root re-created where no watch can be
    /// added), every open scene re-read every 250 ms instead, with a
    /// warning (``RereadTimer``); with `.polling`, re-read at its interval.
    /// Started on the root's own queue: adding the watch (and, first in the
    /// process, starting inotify) makes system calls.
    func watch(
        _ preference: WatcherPreference, logger: Logger,
        handler: @escaping @Sendable (SceneStorageEvent) -> Void
    ) async -> (any SceneStorageWatch)? {
        await onOwnThread { startWatching(preference, logger: logger, handler: handler) }
    }

    private func startWatching(
        _ preference: WatcherPreference, logger: Logger,
        handler: @escaping @Sendable (SceneStorageEvent) -> Void
    ) -> (any SceneStorageWatch)? {
        let watch = FileStorageWatch(clock: clock, logger: logger) { handler(.rescan) }
        switch preference {
        case .none:
            return nil
        case .polling(let interval):
            watch.reread(every: interval)
            return watch
        case .automatic, .inotify:
            guard let watcher = system.watcher else {
                watch.reread(every: defaultFallbackPollingInterval)
                return watch
            }
            let automatic = preference == .automatic
            do {
                let token = try watcher.watch(directory: root) { event in
                    switch event {
                    case .changed(let name):
                        if let id = Self.sceneID(forEventOn: name) { handler(.changed(id)) }
                    case .rescan:
                        handler(.rescan)
                    case .unavailable(let reason) where automatic:
                        watch.reread(every: defaultFallbackPollingInterval, because: reason)
                        handler(.rescan)
                    case .unavailable(let reason):
                        handler(.unavailable(reason: reason))
                    }
                }
                watch.watching(token, of: watcher)
            } catch SceneStoreError.watcherUnavailable(let reason) where automatic {
                watch.reread(every: defaultFallbackPollingInterval, because: reason)
            } catch {
                logger.warning("no file watcher: changes by other processes are merged only when saving", metadata: [
                    "root": "\(root.path)", "error": "\(error)",
                ])
                return nil
            }
            return watch
        }
    }
}

/// The root's interest in inotify, or the timer that stands in for it.
private final class FileStorageWatch: SceneStorageWatch {
    private let clock: SceneClock
    private let logger: Logger
    private let tick: @Sendable () -> Void
    private let state = Locked<(token: (FileWatchToken, any FileWatcher)?, timer: RereadTimer?, cancelled: Bool)>((nil, nil, false))

    init(clock: SceneClock, logger: Logger, tick: @escaping @Sendable () -> Void) {
        self.clock = clock
        self.logger = logger
        self.tick = tick
    }

    var kind: WatcherKind {
        state.withLock { $0.timer }.map { .polling(interval: $0.interval) } ?? .inotify
    }

    /// `watcher` (inotify) serves the root through `token`.
    func watching(_ token: FileWatchToken, of watcher: any FileWatcher) {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.token = (token, watcher) }
            return state.cancelled
        }
        if cancelled { watcher.cancel(token) }
    }

    /// From now on, every open scene is re-read every `interval`; a
    /// `reason` is logged (inotify stopped serving). Once only.
    func reread(every interval: Duration, because reason: String? = nil) {
        let started = state.withLock { state -> Bool in
            guard state.timer == nil, !state.cancelled else { return false }
            state.timer = RereadTimer(interval: interval, clock: clock, tick: tick)
            return true
        }
        if started, let reason {
            logger.warning("file watcher degraded to polling", metadata: [
                "from": "inotify", "interval": "\(interval)", "reason": "\(reason)",
            ])
        }
    }

    func cancel() {
        let (token, timer) = state.withLock { state in
            state.cancelled = true
            defer { (state.token, state.timer) = (nil, nil) }
            return (state.token, state.timer)
        }
        timer?.cancel()
        if let (token, watcher) = token { watcher.cancel(token) }
    }
}

/// One scene's files while its lock is held.
private struct FileTransaction: SceneStorageTransaction {
    let directory: SceneDirectory
    let id: SceneID

    func read(after cursor: LogPosition?) throws(SceneStoreError) -> StoredDocument {
        try directory.read(id, after: cursor, holdingLock: true)
    }

    /// The whole document, exchanged atomically.
    func write(_ document: Data) throws(SceneStoreError) {
        directory.discardPrevious(try directory.write(document, for: id))
    }

    /// The record of `edited` appended over `base` when the log ends
    /// there and may grow; else the whole file, compacted.
    func write(
        _ file: SceneFile, over base: SceneFile?, edited: [String], using writing: SaveWriting
    ) throws(SceneStoreError) -> LogPosition? {
        if let base {
            let (record, sizeLimit) = writing.encoder.withLock { $0.record(file, over: base, edited: edited) }
            _ = writing.appending(record.count, generation: file.generation, over: base.version)
            if try directory.append(record, to: id, over: base.version, sizeLimit: sizeLimit) { return nil }
        }
        let bytes = writing.encoder.withLock { $0.encode(file) }
        try write(bytes)
        return LogPosition(written: bytes, version: file.version)
    }

    func discard(lastSeen: String?) throws(SceneStoreError) {
        var incarnation = lastSeen
        if case .bytes(let data) = try read(after: nil) {
            incarnation = SceneFile.peekVersion(data)?.incarnation ?? (try? SceneFile.decode(data).get())?.incarnation ?? lastSeen
        }
        if let incarnation { try directory.writeTombstone(id, incarnation: incarnation, remembered: Self.discardsRemembered) }
        try directory.removeScene(id)
        directory.removeTombstoneIfAlone(id)
    }

    func discarded(_ incarnation: String) throws(SceneStoreError) -> Bool {
        try directory.discardedIncarnations(id).contains(incarnation)
    }

    func quarantine(reason: String) throws(SceneStoreError) -> String {
        try directory.quarantine(id, reason: reason).path
    }
}
