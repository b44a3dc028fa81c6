import Foundation

/// Where a registry's claims on its window scenes are kept: a claim says a
/// live process holds the window, and its storage lets go of it when that
/// process dies. The file root claims a window's byte of the root's lock
/// file (the kernel drops a dead process's locks); a database, an
/// advisory lock of a connection of the claim's own. The windows' records
/// are a scene of the storage (``WindowRecords``).
package protocol WindowClaims: Sendable {
    /// Claims `id` for this process unless a live process holds it.
    /// - Returns: the claim, or `nil` when someone holds it.
    func claim(_ id: SceneID) async throws(SceneStoreError) -> (any SceneClaim)?

    /// What the claims of `ids` say now, as far as a look can tell: a
    /// window being reopened meanwhile may show as free, and
    /// ``claim(_:)`` decides. One that cannot be told counts as held.
    func claimStates(_ ids: [SceneID]) async throws(SceneStoreError) -> [SceneID: ClaimState]

    /// Forgets what the claim of a window closed for good left behind (the
    /// file root's quit mark); the caller holds the claim or nobody does.
    func removeClaim(_ id: SceneID) async
}

/// What the claim on a window says.
package enum ClaimState: Sendable, Equatable {
    /// A live process holds it.
    case held
    /// Nobody does.
    case free
    /// Nobody does, and its holder recorded its quit on it
    /// (``SceneClaim/markQuit()``): the records could not say so.
    case quit
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
    /// timeout, a full disk): the window comes back for a relaunch, not to
    /// recover, until it is claimed again. Call before ``release()``.
    /// - Returns: whether it could (the default: no).
    func markQuit() async -> Bool
}

extension SceneClaim {
    package func markQuit() async -> Bool { false }
}
