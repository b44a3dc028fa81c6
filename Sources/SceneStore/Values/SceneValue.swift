import Foundation

/// One stored value: exactly the six kinds `@SceneStorage` accepts.
///
/// Equality compares doubles by bit pattern, so `0.0` differs from `-0.0`,
/// except that every NaN equals every other NaN: the scene file spells all
/// of them `"nan"` and a store keeps the canonical quiet NaN. So a value
/// read back from disk always equals the value written.
public enum SceneValue: Sendable, CustomStringConvertible {
    /// A Bool.
    case bool(Bool)
    /// An Int (64 bits).
    case int(Int)
    /// A Double; NaN and the infinities are kept.
    case double(Double)
    /// A String.
    case string(String)
    /// A URL, kept as its absolute string.
    case url(URL)
    /// Data (a Codable model's key keeps its JSON document here).
    case data(Data)

    /// The kind of a stored value, as named in the scene file.
    package enum Kind: String, Sendable, CaseIterable, Codable {
        case bool, int, double, string, url, data
    }

    package var kind: Kind {
        switch self {
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .url: .url
        case .data: .data
        }
    }

    /// Bytes this value counts for against the value and scene limits.
    package var byteCount: Int {
        switch self {
        case .bool: 1
        case .int, .double: 8
        case .string(let string): string.utf8.count
        case .url(let url): url.absoluteString.utf8.count
        case .data(let data): data.count
        }
    }

    /// The value the way `scenes set` takes it: `true`/`false`, decimal
    /// numbers, the URL's absolute string, Data as base64.
    public var description: String {
        switch self {
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): value
        case .url(let value): value.absoluteString
        case .data(let value): value.base64EncodedString()
        }
    }
}

extension SceneValue: Hashable {
    public static func == (lhs: SceneValue, rhs: SceneValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): a == b
        case (.url(let a), .url(let b)): a.absoluteString == b.absoluteString
        case (.data(let a), .data(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        switch self {
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
        case .string(let value): hasher.combine(value)
        case .url(let value): hasher.combine(value.absoluteString)
        case .data(let value): hasher.combine(value)
        }
    }
}

extension SceneValue {
    /// The value as a store keeps it: any NaN becomes the canonical quiet
    /// NaN (payloads and signs cannot be written to the file).
    var canonical: SceneValue {
        if case .double(let double) = self, double.isNaN, double.bitPattern != Double.nan.bitPattern {
            return .double(.nan)
        }
        return self
    }
}
