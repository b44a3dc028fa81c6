/// Where a change came from.
public enum SceneChangeOrigin: Sendable, Hashable {
    /// This process (this registry) set or removed the value.
    case local
    /// Another process (or another registry on the same root) wrote it;
    /// `writerPID` is `nil` when the writer left no trace (a discard).
    case external(writerPID: Int32?)
}

/// One key's value changed.
public struct SceneChange: Sendable, Hashable {
    /// The key whose value changed.
    public let key: String
    /// `nil` when the key was absent.
    public let oldValue: SceneValue?
    /// `nil` when the key was removed.
    public let newValue: SceneValue?
    /// This process, or another one (and which, if it said).
    public let origin: SceneChangeOrigin
    /// The generation of the scene file that carried an external change;
    /// `nil` for a local change, which has no generation until it is saved.
    package let generation: UInt64?

    package init(
        key: String, oldValue: SceneValue?, newValue: SceneValue?,
        origin: SceneChangeOrigin, generation: UInt64?
    ) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.origin = origin
        self.generation = generation
    }
}

/// A damaged scene file that was moved aside.
public struct QuarantinedScene: Sendable, Hashable {
    /// What was wrong with the file.
    public let reason: String
    /// Where the damaged file now is, inside the root's `quarantine/`.
    public let quarantinedFile: String
}

/// One element of ``SceneStore/updates()``: what one transition of a scene
/// did.
public enum SceneUpdate: Sendable, Hashable {
    /// Keys changed: one local set or remove, or every key one save of
    /// another process changed, together, so that a reader sees that save
    /// whole, never half of it.
    case changed([SceneChange])
    /// The scene was discarded, here or by another process: every value
    /// it held is gone. Streams go on; the store is usable, and a later set
    /// creates the scene again. (Edits this process had not saved yet when
    /// another process discarded follow as local changes: they are kept.)
    case discarded(origin: SceneChangeOrigin)
    /// The scene file was damaged and moved to quarantine.
    case quarantined(QuarantinedScene)
    /// A background save failed: the values stay in memory and are
    /// retried. Sent once when saves start failing (and again if the
    /// error changes), not once per retry; ``SceneStore/lastSaveError``
    /// is cleared by the next successful save.
    case saveFailed(SceneStoreError)

    /// The changes of a ``changed(_:)`` update; empty for the others.
    public var changes: [SceneChange] {
        if case .changed(let changes) = self { changes } else { [] }
    }

    /// Who caused the update: this process or another; `nil` for a
    /// quarantine or a failed save, which this process found.
    public var origin: SceneChangeOrigin? {
        switch self {
        case .changed(let changes): changes.first?.origin
        case .discarded(let origin): origin
        case .quarantined, .saveFailed: nil
        }
    }
}
