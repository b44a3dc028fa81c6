/// The result of restoring a path of ``PathReferencing`` values: the values
/// whose references still resolve, in their saved order, and what was lost.
public struct ResolvedPath<Element: PathReferencing> {
    /// The resolved values, in the saved order.
    public var path: [Element]

    /// References that decoded but no longer resolve (their values were
    /// deleted from the app's data), in the saved order.
    public var unresolved: [Element.Reference]

    /// Stored references that did not even decode (lenient restore from
    /// `Data` only; see ``RestoredPath/dropped``).
    public var dropped: [DroppedElement]

    /// Whether every saved reference came back as a value.
    public var isComplete: Bool {
        unresolved.isEmpty && dropped.isEmpty
    }

    /// Creates a result.
    public init(path: [Element], unresolved: [Element.Reference], dropped: [DroppedElement]) {
        self.path = path
        self.unresolved = unresolved
        self.dropped = dropped
    }
}

extension ResolvedPath: Sendable where Element: Sendable {}
