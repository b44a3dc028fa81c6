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
    public let key: String
    /// `nil` when the key was absent.
    public let oldValue: SceneValue?
    /// `nil` when the key was removed.
    public let newValue: SceneValue?
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
    public let scene: SceneID
    /// What was wrong with the file.
    public let reason: String
    /// Where the damaged file now is, inside the root's `quarantine/`.
    public let quarantinedFile: String
}

/// Everything a scene reports to its observers, in order.
public enum SceneEvent: Sendable, Hashable {
    case changed(SceneChange)
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
}

/// Everything one state transition of a scene did, delivered together: one
/// local set or remove, every key one version of the file written by
/// another process changed, a discard, or a recovery.
public struct SceneUpdate: Sendable, Hashable {
    public let events: [SceneEvent]

    package init(events: [SceneEvent]) {
        self.events = events
    }

    /// The key changes among ``events``.
    public var changes: [SceneChange] {
        events.compactMap { event in
            if case .changed(let change) = event { change } else { nil }
        }
    }

    /// Who caused the update: the origin of its first change or discard
    /// (`nil` for a recovery or a failed save alone).
    public var origin: SceneChangeOrigin? {
        for event in events {
            switch event {
            case .changed(let change): return change.origin
            case .discarded(let origin): return origin
            case .quarantined, .saveFailed: continue
            }
        }
        return nil
    }
}
