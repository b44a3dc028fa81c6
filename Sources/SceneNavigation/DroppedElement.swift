/// An element that a lenient restore left out of the path.
public struct DroppedElement: Sendable {
    /// Why an element was dropped.
    public enum Reason: Sendable {
        /// No registered type claims the element's tag.
        case unknownTag

        /// The element's stored value could not be decoded: its type no
        /// longer matches what was written, or the record itself is
        /// malformed (for example, it has no tag).
        case undecodable(underlying: any Error)
    }

    /// The element's position in the stored path, counted from the root (`0`)
    /// before anything was dropped.
    public let position: Int

    /// The element's tag, or `nil` for typed stacks (which store no tags) and
    /// for records whose tag could not be read.
    public let tag: String?

    /// Why the element was dropped.
    public let reason: Reason

    /// The error a strict restore reports for this element.
    var strictError: ScenePathError {
        switch reason {
        case .unknownTag:
            .unknownTag(tag ?? "", position: position)
        case .undecodable(let underlying):
            .undecodableElement(tag: tag, position: position, underlying: underlying)
        }
    }
}

extension DroppedElement: CustomStringConvertible {
    /// The element and the reason, as a log line would state them.
    public var description: String {
        strictError.description
    }
}
