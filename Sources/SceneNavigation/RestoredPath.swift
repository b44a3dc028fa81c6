/// The result of every restore: the path, and the stored elements that
/// could not be brought back.
///
/// ``PathCodec/decode(_:)`` returns one, and so do a ``PathBinding``'s
/// ``PathBinding/restore()`` and ``PathBinding/externalChanges()``. `Path`
/// is ``ScenePath``, an array (a typed stack), or a ``NavigationHistory``
/// of either.
///
/// ```swift
/// let restored = try PathCodec.references(to: Recipe.self) { model.recipe(id: $0) }.decode(data)
/// recipes = restored.path
/// for dropped in restored.dropped { logger.notice("left out \(dropped)") }
/// ```
public struct RestoredPath<Path> {
    /// The restored path: every element that could be brought back, in the
    /// stored order.
    public var path: Path

    /// The stored elements left out, in stored order (each list of a
    /// history in turn): unknown tags and elements that no longer decode
    /// (lenient restores only: a strict restore throws instead), and
    /// references whose value the app's data no longer holds (under either
    /// policy). Empty when every stored element came back.
    public var dropped: [DroppedElement]

    init(path: Path, dropped: [DroppedElement]) {
        self.path = path
        self.dropped = dropped
    }
}

extension RestoredPath: Sendable where Path: Sendable {}
