import Foundation

/// Where a registry keeps its scenes' window lifecycle: a record per
/// window scene, and claims that say a live process holds one. The file
/// root keeps the records in one index file and a claim as a lock on the
/// window's byte of the root's lock file; the kernel drops a dead
/// process's claims.
package protocol SceneSessionStorage: Sendable {
    /// Claims `id` for this process unless a live process holds it.
    /// - Returns: the claim, or `nil` when someone holds it.
    func claim(_ id: SceneID) async throws(SceneStoreError) -> (any SceneClaim)?

    /// Every record, each with whether a live process holds its scene, as
    /// far as a list can tell: a scene being reopened meanwhile may show
    /// as free, and ``claim(_:)`` decides.
    func sessionRecords() async throws(SceneStoreError) -> [(record: SessionRecord, held: Bool)]

    /// Forgets what the claim of a scene closed for good left behind (the
    /// file root's claim file); the caller holds the claim or nobody does.
    func removeClaim(_ id: SceneID) async

    /// Changes the records of `ids` under the storage's lock: `change`
    /// gets those of them that exist and may add, change or remove any of
    /// them (only them); it may run again if the storage retries.
    func updateSessionRecords(
        _ ids: Set<SceneID>, _ change: @Sendable (inout [SceneID: SessionRecord]) -> Void
    ) async throws(SceneStoreError)
}

/// A scene held by this process; the kernel (or the database) lets go of
/// it when the process dies.
package protocol SceneClaim: Sendable {
    /// Lets go of the claim; others can claim the scene when it returns.
    /// Idempotent.
    func release() async
    /// Lets go at once, as the process's death would (the storage may
    /// see it a moment later). Idempotent.
    func abandon()
    /// Records on the claim itself that its holder quits, for when the
    /// records cannot say so (another process held their lock past the
    /// timeout): the window comes back for a relaunch, not to recover,
    /// until it is claimed again. Call before ``release()``.
    /// - Returns: whether it could (the default: no).
    func markQuit() async -> Bool
}

extension SceneClaim {
    package func markQuit() async -> Bool { false }
}

/// What the storage keeps about one window scene.
package struct SessionRecord: Sendable, Hashable {
    package var id: SceneID
    package var created: Date
    package var lastActive: Date
    /// `true` from a claim until the holder quits: found `true` while
    /// nobody holds the scene, its holder died.
    package var open: Bool
    /// The process that claimed it last, for display only.
    package var pid: Int32?
    package var title: String?

    package init(id: SceneID, created: Date, lastActive: Date, open: Bool, pid: Int32?, title: String?) {
        self.id = id
        self.created = created
        self.lastActive = lastActive
        self.open = open
        self.pid = pid
        self.title = title
    }
}

extension SessionRecord {
    /// A record's instant as stored: whole milliseconds since 1970.
    package static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return value.isFinite ? Int64(max(min(value, 1e15), -1e15)) : 0
    }

    /// The instant `milliseconds` stores.
    package static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
