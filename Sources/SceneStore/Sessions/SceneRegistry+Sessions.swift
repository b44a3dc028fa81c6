import Foundation
import Logging

/// Multi-window lifecycle: which window scenes to reopen at launch and why,
/// a new window's scene, quitting (every open window comes back) versus
/// closing one window for good (its state goes, in every process).
///
/// ```swift
/// let scenes = try await SceneRegistry(appID: "com.example.editor")
/// var windows: [SceneStore] = []
/// for session in try await scenes.scenesToRestore() {        // most recent first
///     if let store = try await scenes.reopen(session.id) { windows.append(store) }
/// }
/// if windows.isEmpty { windows.append(try await scenes.newScene()) }
/// // ... a window closed by the user:
/// try await scenes.closeForGood(windows[0].id)
/// // ... quitting (also on SIGTERM): every window left open comes back next launch
/// try await scenes.close()
/// ```
///
/// A window scene is *open* while a live process holds it: on the file
/// root, a lock on the window's byte of the root's lock file, which the
/// kernel lets go of when the process ends, however
/// it ends; never a pid that may be reused. It is *restorable* once nobody
/// holds it: for ``SceneRestoreReason/relaunch`` when its process quit (closed
/// the registry), ``SceneRestoreReason/recover`` when it died holding it.
/// Reopening claims it atomically: of several processes launched at once,
/// one gets each window. A scene opened by id with ``store(for:)``
/// is shared, never claimed: two processes can show one scene.
extension SceneRegistry {
    /// A new window: a fresh scene id, claimed by this process until it
    /// quits or closes the window for good.
    /// - Parameter title: what to show for the window in lists.
    public func newScene(title: String? = nil) async throws -> SceneStore {
        let claims = try windowClaims()
        while true {
            let id = try SceneID("w-" + randomToken().prefix(12))
            guard let claim = try await claims.claim(id) else { continue }
            let now = configuration.now()
            let pid = getpid()
            let recorded = Locked(false)
            do {
                return try await holding(claim, of: id) {
                    try await windows.update([id]) { records in
                        records[id] = SessionRecord(id: id, created: now, lastActive: now, open: true, pid: pid, title: title)
                    }
                    recorded.withLock { $0 = true }
                }
            } catch {
                // A window that never was leaves nothing (nobody else knows its id).
                if recorded.withLock({ $0 }) { try? await windows.update([id]) { records in records[id] = nil } }
                await claims.removeClaim(id)
                throw error
            }
        }
    }

    /// The window scenes to reopen at launch, most recently active first,
    /// each with its reason; never one a live process holds. Scenes past
    /// ``Configuration/restorableExpiry`` are closed for good first
    /// (those another launch claims meanwhile are left to it).
    public func scenesToRestore() async throws -> [SceneSession] {
        let claims = try windowClaims()
        var restorable = try await records(claims).filter { !$0.held }.map(\.record)
        if let expiry = configuration.restorableExpiry {
            let cutoff = configuration.now().addingTimeInterval(-expiry.seconds)
            let expired = restorable.filter { $0.lastActive < cutoff }
            for record in expired { _ = try await closeIfIdle(record.id, since: cutoff, claims) }
            restorable.removeAll { $0.lastActive < cutoff }
        }
        return restorable
            .sorted { ($0.lastActive, $0.id.rawValue) > ($1.lastActive, $1.id.rawValue) }
            .map { Self.session($0, held: false) }
    }

    /// Every window scene the registry's root keeps, open or restorable,
    /// most recently active first (what `scenes list` shows).
    public func sessions() async throws -> [SceneSession] {
        try await records(windowClaims(writing: false))
            .sorted { ($0.record.lastActive, $0.record.id.rawValue) > ($1.record.lastActive, $1.record.id.rawValue) }
            .map { Self.session($0.record, held: $0.held) }
    }

    /// Reopens a restorable window scene, claiming it for this process.
    /// - Returns: its store, or `nil` when a live process holds it (it
    ///   was claimed since the list was made) or it was closed for good.
    public func reopen(_ id: SceneID) async throws -> SceneStore? {
        let claims = try windowClaims()
        if state.withLock({ $0.claims[id] != nil }) { return try await store(for: id) }
        guard let claim = try await claims.claim(id) else { return nil }
        let now = configuration.now()
        let pid = getpid()
        let known = Locked(false)
        do {
            try await windows.update([id]) { records in
                guard records[id] != nil else { return }
                known.withLock { $0 = true }
                records[id]?.open = true
                records[id]?.pid = pid
                records[id]?.lastActive = now
            }
        } catch {
            await claim.release()
            throw error
        }
        guard known.withLock({ $0 }) else {
            await claim.release()
            return nil
        }
        return try await holding(claim, of: id) {}
    }

    /// Closes one window for good: its state is discarded (every process
    /// that has the scene open sees it emptied) and it is never offered
    /// for restoring again. It claims the window first, unless this
    /// registry holds it.
    /// - Throws: ``SceneStoreError/windowInUse(scene:)`` when another live
    ///   process holds the window: nothing is changed.
    public func closeForGood(_ id: SceneID) async throws {
        guard try await closeIfIdle(id, since: nil, windowClaims()) else { throw SceneStoreError.windowInUse(scene: id.rawValue) }
    }

    /// Closes window `id` for good if it is restorable: a window of the
    /// storage's records that nobody holds, this registry neither.
    /// - Returns: whether it did.
    func closeIfRestorable(_ id: SceneID) async throws -> Bool {
        guard !configuration.readOnly, let claims = storage as? any WindowClaims,
              state.withLock({ $0.claims[id] == nil }),
              try await windows.all()[id] != nil, try await claims.claimStates([id])[id] != .held
        else { return false }
        return try await closeIfIdle(id, since: nil, claims)
    }

    /// Closes window `id` for good holding its claim: this registry's, or
    /// one taken now; with `cutoff`, only if it was not active since.
    /// - Returns: `false`, changing nothing, when another process holds
    ///   it, or it was active since `cutoff` (a launch reopened it after
    ///   the caller listed it).
    private func closeIfIdle(_ id: SceneID, since cutoff: Date?, _ claims: any WindowClaims) async throws -> Bool {
        let own = state.withLock { $0.claims[id] }
        var taken: (any SceneClaim)? = own
        if taken == nil { taken = try await claims.claim(id) }
        guard let claim = taken else { return false }
        do {
            // Read after the claim: a launch that reopened the window since
            // the caller listed it wrote its record before it let go.
            if let cutoff, let record = try await windows.all()[id], record.lastActive >= cutoff {
                if own == nil { await claim.release() }
                return false
            }
            try await store(for: id).discard()
            try await windows.update([id]) { records in records[id] = nil }
        } catch {
            if own == nil { await claim.release() }
            throw error
        }
        state.withLock { state in _ = state.claims.removeValue(forKey: id) }
        await claims.removeClaim(id)
        await claim.release()
        return true
    }

    /// Marks window scene `id` as the one in use now (call it when a
    /// window comes to the front): the next launch restores the windows in
    /// the order they were last active.
    public func markActive(_ id: SceneID) async throws {
        let now = configuration.now()
        _ = try windowClaims()
        try await windows.update([id]) { records in records[id]?.lastActive = now }
    }

    /// Sets (or with `nil` removes) the title shown for window scene `id`.
    public func setTitle(_ title: String?, for id: SceneID) async throws {
        _ = try windowClaims()
        try await windows.update([id]) { records in records[id]?.title = title }
    }

    /// Closes for good every restorable window scene not active for
    /// `age` (what `scenes prune --older-than` does); a window a launch
    /// claims meanwhile is left to it.
    /// - Returns: the scenes closed, most recent first.
    @discardableResult
    public func prune(olderThan age: Duration) async throws -> [SceneID] {
        let claims = try windowClaims()
        let cutoff = configuration.now().addingTimeInterval(-age.seconds)
        var closed: [SceneID] = []
        for session in try await scenesToRestore() where session.lastActive < cutoff {
            if try await closeIfIdle(session.id, since: cutoff, claims) { closed.append(session.id) }
        }
        return closed
    }

    // MARK: Internals

    /// - Parameter writing: whether the caller changes records or claims
    ///   (a read-only registry only lists them).
    private func windowClaims(writing: Bool = true) throws(SceneStoreError) -> any WindowClaims {
        guard let claims = storage as? any WindowClaims else {
            throw .storageUnavailable(location: storage.location, reason: "it keeps no window sessions")
        }
        guard !writing || !configuration.readOnly else { throw .readOnly(scene: storage.location) }
        return claims
    }

    /// Every record, each with whether a live process holds its window,
    /// as far as a look can tell (``WindowClaims/claimStates(_:)``). Only
    /// a window the records say is open can be held for more than a
    /// moment: one that quit let go of its claim after its record said
    /// so, and a reopen claims before it says so again.
    private func records(_ claims: any WindowClaims) async throws(SceneStoreError) -> [(record: SessionRecord, held: Bool)] {
        let records = try await windows.all().values
        let states = try await claims.claimStates(records.filter(\.open).map(\.id))
        return records.map { record in
            switch states[record.id] {
            case nil, .free?: return (record, false)
            case .held?: return (record, true)
            case .quit?:
                var quit = record
                quit.open = false
                return (quit, false)
            }
        }
    }

    /// Records `claim` as this registry's, runs `record` (the claim lost
    /// if it throws) and opens the store.
    private func holding(
        _ claim: any SceneClaim, of id: SceneID, record: () async throws -> Void
    ) async throws -> SceneStore {
        do {
            try await record()
            try state.withLock { (state) throws(SceneStoreError) in
                guard !state.closed else { throw .closed(scene: nil) }
                state.claims[id] = claim
            }
            return try await store(for: id)
        } catch {
            state.withLock { state in _ = state.claims.removeValue(forKey: id) }
            await claim.release()
            throw error
        }
    }

    /// Lets go of every window this registry holds; when quitting, first
    /// marks them restorable for a relaunch: in the records, or, when
    /// those cannot be changed (their lock held past the timeout, a full
    /// disk), on each claim (``SceneClaim/markQuit()``), which needs no
    /// shared lock. A window neither could mark is left to be recovered.
    func letGoOfWindows(quitting: Bool) async {
        let claims = state.withLock { state in
            defer { state.claims = [:] }
            return state.claims
        }
        guard !claims.isEmpty else { return }
        if quitting {
            let now = configuration.now()
            let ids = Set(claims.keys)
            do {
                try await windows.update(ids) { records in
                    // Stamped with the quit time, a millisecond apart in
                    // the order they were last active: the next launch
                    // restores them in that order, and none expires early.
                    let order = ids.compactMap { records[$0] }
                        .sorted { ($0.lastActive, $0.id.rawValue) > ($1.lastActive, $1.id.rawValue) }
                    for (rank, record) in order.enumerated() {
                        records[record.id]?.open = false
                        records[record.id]?.lastActive = now.addingTimeInterval(-Double(rank) / 1000)
                    }
                }
            } catch {
                var unmarked = 0
                for claim in claims.values {
                    if await !claim.markQuit() { unmarked += 1 }
                }
                if unmarked > 0 {
                    configuration.logger.warning("could not mark the open windows as quit; they will be recovered", metadata: [
                        "error": "\(error)", "windows": "\(unmarked)",
                    ])
                } else {
                    configuration.logger.info("the windows' records could not be changed; each window's quit is kept on its claim", metadata: [
                        "error": "\(error)",
                    ])
                }
            }
        }
        for claim in claims.values { await claim.release() }
    }

    private static func session(_ record: SessionRecord, held: Bool) -> SceneSession {
        SceneSession(
            id: record.id, created: record.created, lastActive: record.lastActive, title: record.title,
            state: held ? .open(pid: record.pid) : .restorable(record.open ? .recover : .relaunch))
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
