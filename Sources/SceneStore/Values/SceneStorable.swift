import Foundation

/// A type that can be kept in a scene.
///
/// Exactly Bool, Int, Double, String, URL and Data conform, plus `Optional`
/// of a conforming type and — by declaring conformance with no body —
/// `RawRepresentable` types whose raw value is one of the six:
///
/// ```swift
/// enum Tab: String, SceneStorable { case mixed, books, library }
/// ```
///
/// Anything else (Float, Date, arrays, your structs) does not compile as a
/// stored value. Codable models travel as JSON `Data` through a model key: see
/// ``SceneKey/init(_:tag:version:default:migrations:)``.
public protocol SceneStorable: Sendable {
    /// The stored form; `nil` means "no value", and setting it removes the key.
    var sceneValue: SceneValue? { get }

    /// Rebuilds the value, or returns `nil` if `sceneValue` is of another kind.
    init?(sceneValue: SceneValue)
}

extension Bool: SceneStorable {
    public var sceneValue: SceneValue? { .bool(self) }
    public init?(sceneValue: SceneValue) {
        guard case .bool(let value) = sceneValue else { return nil }
        self = value
    }
}

extension Int: SceneStorable {
    public var sceneValue: SceneValue? { .int(self) }
    public init?(sceneValue: SceneValue) {
        guard case .int(let value) = sceneValue else { return nil }
        self = value
    }
}

extension Double: SceneStorable {
    public var sceneValue: SceneValue? { .double(self) }
    public init?(sceneValue: SceneValue) {
        guard case .double(let value) = sceneValue else { return nil }
        self = value
    }
}

extension String: SceneStorable {
    public var sceneValue: SceneValue? { .string(self) }
    public init?(sceneValue: SceneValue) {
        guard case .string(let value) = sceneValue else { return nil }
        self = value
    }
}

extension URL: SceneStorable {
    public var sceneValue: SceneValue? { .url(self) }
    public init?(sceneValue: SceneValue) {
        guard case .url(let value) = sceneValue else { return nil }
        self = value
    }
}

extension Data: SceneStorable {
    public var sceneValue: SceneValue? { .data(self) }
    public init?(sceneValue: SceneValue) {
        guard case .data(let value) = sceneValue else { return nil }
        self = value
    }
}

extension Optional: SceneStorable where Wrapped: SceneStorable {
    public var sceneValue: SceneValue? {
        switch self {
        case .some(let wrapped): wrapped.sceneValue
        case .none: nil
        }
    }

    public init?(sceneValue: SceneValue) {
        guard let wrapped = Wrapped(sceneValue: sceneValue) else { return nil }
        self = .some(wrapped)
    }
}

extension SceneStorable where Self: RawRepresentable, RawValue: SceneStorable {
    /// A raw-value type stores as its raw value.
    public var sceneValue: SceneValue? { rawValue.sceneValue }

    /// The value whose raw value is stored, or `nil` when the stored value
    /// is of another kind or no value has that raw value.
    public init?(sceneValue: SceneValue) {
        guard let raw = RawValue(sceneValue: sceneValue) else { return nil }
        self.init(rawValue: raw)
    }
}
