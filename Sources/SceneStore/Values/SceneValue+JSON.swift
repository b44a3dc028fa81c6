import Foundation

/// How a value appears in JSON, the way a person reads a scene (`scenes
/// show --json`) and `scenes set` takes it: a Bool is `true`/`false`;
/// numbers are JSON numbers, except the doubles JSON cannot hold, which are
/// the strings `"nan"`, `"inf"` and `"-inf"`; strings are strings; a URL is
/// its absolute string; Data is base64.
package enum SceneValueJSON: Equatable {
    case bool(Bool)
    /// A JSON number, as its text.
    case number(String)
    case string(String)

    package init(_ value: SceneValue) {
        switch value {
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .number(String(int))
        case .double(let double):
            if double.isNaN {
                self = .string("nan")
            } else if double.isInfinite {
                self = .string(double < 0 ? "-inf" : "inf")
            } else {
                // Swift's shortest round-trip form is valid JSON ("0.1", "1e-05", "5.0").
                self = .number(String(double))
            }
        case .string(let text): self = .string(text)
        case .url(let url): self = .string(url.absoluteString)
        case .data(let data): self = .string(data.base64EncodedString())
        }
    }

    /// The value of kind `kind` this JSON holds, or `nil` if it holds none.
    package func value(as kind: SceneValue.Kind) -> SceneValue? {
        switch (kind, self) {
        case (.bool, .bool(let bool)): .bool(bool)
        case (.int, .number(let text)): Int(text).map(SceneValue.int)
        case (.double, .number(let text)): Double(text).map(SceneValue.double)
        case (.double, .string("nan")): .double(.nan)
        case (.double, .string("inf")): .double(.infinity)
        case (.double, .string("-inf")): .double(-.infinity)
        case (.string, .string(let text)): .string(text)
        case (.url, .string(let text)): URL(string: text).map(SceneValue.url)
        case (.data, .string(let text)): Data(base64Encoded: text).map(SceneValue.data)
        default: nil
        }
    }
}
