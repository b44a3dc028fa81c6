import Foundation

/// A local set (`value` non-nil) or remove (`nil`) not yet saved.
struct PendingEdit: Sendable {
    let value: SceneValue?
    /// Tells an edit apart from a later edit of the same key, so a save
    /// only clears the edits it actually wrote.
    let sequence: UInt64
    /// Whether the edit may replace what the document holds under its key
    /// when it is saved (`nil`: always). A stored model's write says no to
    /// a model of a newer schema that another process stored meanwhile.
    var replaces: (@Sendable (SceneValue?) -> Bool)? = nil

    /// A value memory held from a file that ended without a discard,
    /// written back only where the scene's file has none: what another
    /// process stored under its key since is newer.
    static func writeBack(_ value: SceneValue, sequence: UInt64) -> PendingEdit {
        PendingEdit(value: value, sequence: sequence, replaces: { $0 == nil })
    }
}
