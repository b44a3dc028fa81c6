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

    /// For each stored element of the path, in stored order, whether it is
    /// in `path`: what lets a binding write the others back in place.
    /// `nil` from a codec that has no element-by-element form.
    var restored: [Bool]?
    /// The same for a history's forward entries and recently viewed
    /// screens, in stored order (``StoredParts``); `nil`: all restored.
    var forwardRestored: [Bool]?
    var recentRestored: [Bool]?

    init(path: Path, dropped: [DroppedElement]) {
        self.path = path
        self.dropped = dropped
    }

    /// A restore of `total` stored elements that left out `dropped`, with
    /// the mask of what it restored.
    init(path: Path, dropped: [DroppedElement], total: Int) {
        self.init(path: path, dropped: dropped)
        var mask = Array(repeating: true, count: total)
        for position in dropped.map(\.position) where mask.indices.contains(position) {
            mask[position] = false
        }
        restored = mask
    }
}

extension RestoredPath: Sendable where Path: Sendable {}
