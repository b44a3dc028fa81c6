/// A stored element that a restore left out of the path: where it was, its
/// tag when it has one, and why it could not be brought back.
///
/// Every restore lists them in ``RestoredPath/dropped``, in stored order,
/// and a bound model's ``BoundPath/keptAside`` lists those a binding keeps
/// in the store for the processes that can still read them. Interpolated
/// into a string, an element reads as a log line states it:
/// `element at position 1 (tag "book") no longer decodes: ...`.
public struct DroppedElement: Sendable {
    /// Why an element was dropped.
    public enum Reason: Sendable {
        /// No registered type claims the element's tag. A strict restore
        /// throws ``ScenePathError/unknownTag(_:position:)`` instead.
        case unknownTag

        /// The element's stored value could not be decoded: its type no
        /// longer matches what was written, or the record itself is
        /// malformed (for example, it has no tag). A strict restore throws
        /// ``ScenePathError/undecodableElement(tag:position:underlying:)``
        /// instead.
        case undecodable(underlying: any Error)

        /// The stored reference decoded, but the app's data no longer holds
        /// a value for it (``PathReferencing``): the value was deleted.
        /// Dropped under either policy.
        case unresolved(reference: any ScenePathElement)
    }

    /// Which list of a stored ``NavigationHistory`` an element was in; a
    /// plain path has only ``path``.
    public enum List: Sendable, Hashable {
        /// The path itself (the screens shown).
        case path
        /// The history's forward entries (``NavigationHistory/forwardSteps``).
        case forward
        /// The history's recently viewed screens (``NavigationHistory/recentlyViewed``).
        case recentlyViewed
    }

    /// The element's position in its stored list, counted from the root
    /// (`0`) before anything was dropped.
    public let position: Int

    /// The element's tag, or `nil` for typed stacks and references (which
    /// store no tags) and for records whose tag could not be read.
    public let tag: String?

    /// Why the element was dropped.
    public let reason: Reason

    /// The list of a stored history the element was in: ``List/path`` for
    /// a plain path.
    public let list: List

    init(position: Int, tag: String?, reason: Reason, list: List = .path) {
        self.position = position
        self.tag = tag
        self.reason = reason
        self.list = list
    }

    /// The same element, found in `list` of a stored history.
    func found(in list: List) -> DroppedElement {
        DroppedElement(position: position, tag: tag, reason: reason, list: list)
    }

    /// The error a strict restore reports for this element; `nil` for an
    /// unresolved reference, which no policy refuses.
    var strictError: ScenePathError? {
        switch reason {
        case .unknownTag:
            .unknownTag(tag ?? "", position: position)
        case .undecodable(let underlying):
            .undecodableElement(tag: tag, position: position, underlying: underlying)
        case .unresolved:
            nil
        }
    }
}

extension DroppedElement: CustomStringConvertible {
    /// The element and the reason, as a log line would state them, after
    /// `forward: ` or `recently viewed: ` for an element of those lists of
    /// a history.
    public var description: String {
        let list = switch list {
        case .path: ""
        case .forward: "forward: "
        case .recentlyViewed: "recently viewed: "
        }
        if case .unresolved(let reference) = reason {
            return list + "no longer exists: \(reference)"
        }
        // The others read as the error a strict restore throws for them.
        return list + (strictError.map(\.description) ?? "")
    }
}
