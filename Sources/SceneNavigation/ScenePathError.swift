/// Why a path could not be encoded or restored.
///
/// A ``PathBinding`` throws it too when saving would overwrite a stored
/// path that this process cannot restore (a newer format version, or an
/// element a strict codec refuses), and writes nothing.
///
/// Every case carries what a log line needs: the element's position (counted
/// from the root, `0`), its tag or type, and the underlying error.
public enum ScenePathError: Error, Sendable {
    /// Encoding met an element whose type is not in the registry.
    ///
    /// - Parameters: the element type's qualified name, and the element's
    ///   position.
    case unregisteredType(String, position: Int)

    /// An element's own `encode(to:)` failed (for example, a `Double` that is
    /// not a number). `tag` is `nil` for typed stacks; `position` is `nil`
    /// only if the failure could not be attributed to an element.
    case unencodableElement(tag: String?, position: Int?, underlying: any Error)

    /// The data is not an encoded path at all: not JSON, or missing the
    /// version or the element list.
    case corruptData(underlying: any Error)

    /// The data was written by a newer format version than this code reads.
    case unsupportedVersion(Int)

    /// Strict restore: no registered type claims the element's tag.
    case unknownTag(String, position: Int)

    /// Strict restore: the element's stored value no longer decodes, or its
    /// record is malformed. `tag` is `nil` for typed stacks and for records
    /// without a readable tag.
    case undecodableElement(tag: String?, position: Int, underlying: any Error)
}

extension ScenePathError: CustomStringConvertible {
    /// The element's position, its tag or type and the cause, as a log
    /// line states them.
    public var description: String {
        switch self {
        case .unregisteredType(let typeName, let position):
            "element at position \(position) has type \(typeName), which is not registered"
        case .unencodableElement(let tag, let position, let underlying):
            "\(Self.subject(tag: tag, position: position)) could not be encoded: \(underlying)"
        case .corruptData(let underlying):
            "data is not an encoded navigation path: \(underlying)"
        case .unsupportedVersion(let version):
            "encoded path has format version \(version); this code reads version \(PathDocument.currentVersion)"
        case .unknownTag(let tag, let position):
            "element at position \(position) has tag \"\(tag)\", which no registered type claims"
        case .undecodableElement(let tag, let position, let underlying):
            "\(Self.subject(tag: tag, position: position)) no longer decodes: \(underlying)"
        }
    }

    private static func subject(tag: String?, position: Int?) -> String {
        let at = position.map { "element at position \($0)" } ?? "an element"
        return tag.map { "\(at) (tag \"\($0)\")" } ?? at
    }
}
