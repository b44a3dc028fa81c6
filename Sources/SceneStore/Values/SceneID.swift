/// A validated scene identifier: 1...128 characters of `[A-Za-z0-9._-]`,
/// not starting with `.`. The scene's file is named after it, so anything
/// that could escape the root (`..`, `/`, NUL) is rejected before any file
/// is touched.
///
/// An id written in the source is a literal (`scenes.store(for: "main")`);
/// an id that comes from a user, a file or another process goes through
/// the throwing ``init(_:)``.
public struct SceneID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The longest id, in characters.
    package static let maxLength = 128

    /// The id as written.
    public let rawValue: String

    /// - Throws: ``SceneStoreError/invalidSceneID(_:reason:)``.
    public init(_ rawValue: String) throws(SceneStoreError) {
        if let reason = Self.problem(with: rawValue) {
            throw .invalidSceneID(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    /// An id written in the source.
    /// - Precondition: `value` is a valid id (a programming error otherwise).
    public init(stringLiteral value: String) {
        if let reason = Self.problem(with: value) {
            preconditionFailure("invalid scene id literal \(value.debugDescription): \(reason)")
        }
        rawValue = value
    }

    /// A reserved id (one starting with `.`), never validated.
    init(reserved rawValue: String) {
        self.rawValue = rawValue
    }

    /// The id as written.
    public var description: String { rawValue }

    /// Ids sort by their raw value.
    public static func < (lhs: SceneID, rhs: SceneID) -> Bool { lhs.rawValue < rhs.rawValue }

    private static func problem(with raw: String) -> String? {
        let scalars = raw.unicodeScalars
        if scalars.isEmpty { return "empty" }
        if scalars.count > maxLength { return "longer than \(maxLength) characters" }
        if raw.hasPrefix(".") { return "starts with '.'" }
        for scalar in scalars where !isAllowed(scalar) {
            return "character \(scalar.escaped(asASCII: true).debugDescription) is not in [A-Za-z0-9._-]"
        }
        return nil
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": true
        default: false
        }
    }
}
