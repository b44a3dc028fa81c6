/// What restoring a path does with an element it cannot bring back: one whose
/// tag no registered type claims, or whose stored value no longer decodes
/// (its type's schema changed since it was written).
public enum PathDecodingPolicy: Sendable, Hashable {
    /// Fail: the restore throws a ``ScenePathError`` naming the first such
    /// element's position and tag.
    case strict

    /// Drop such elements, keep the others in order, and list what was
    /// dropped in the result (``RestoredPath/dropped``).
    case lenient
}
