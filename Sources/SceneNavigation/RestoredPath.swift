/// The result of restoring a path from its encoded form: the path, and the
/// elements a lenient restore had to leave out.
///
/// `Path` is ``ScenePath`` for type-erased paths and `[Element]` for typed
/// stacks.
public struct RestoredPath<Path> {
    /// The restored path: every element that could be brought back, in the
    /// stored order.
    public var path: Path

    /// The elements left out, in stored order. Always empty after a strict
    /// restore (which throws instead).
    public var dropped: [DroppedElement]

    /// Whether every stored element came back.
    public var isComplete: Bool {
        dropped.isEmpty
    }

    /// Creates a result.
    public init(path: Path, dropped: [DroppedElement]) {
        self.path = path
        self.dropped = dropped
    }
}

extension RestoredPath: Sendable where Path: Sendable {}
