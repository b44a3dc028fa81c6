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
}
