import Foundation

/// A value as scene files (and `scenes show --json`) write it:
/// `{"type": "int", "value": 5}`. Doubles that JSON cannot hold are written
/// as the strings `"nan"`, `"inf"` and `"-inf"`; Data is base64; URLs are
/// their absolute string.
extension SceneValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(SceneValue.Kind.self, forKey: .type)
        switch kind {
        case .bool:
            self = .bool(try container.decode(Bool.self, forKey: .value))
        case .int:
            self = .int(try container.decode(Int.self, forKey: .value))
        case .double:
            if let text = try? container.decode(String.self, forKey: .value) {
                switch text {
                case "nan": self = .double(.nan)
                case "inf": self = .double(.infinity)
                case "-inf": self = .double(-.infinity)
                default:
                    throw DecodingError.dataCorruptedError(
                        forKey: .value, in: container, debugDescription: "not a double: \(text)")
                }
            } else {
                self = .double(try container.decode(Double.self, forKey: .value))
            }
        case .string:
            self = .string(try container.decode(String.self, forKey: .value))
        case .url:
            let text = try container.decode(String.self, forKey: .value)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "not a URL: \(text)")
            }
            self = .url(url)
        case .data:
            let text = try container.decode(String.self, forKey: .value)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "not base64")
            }
            self = .data(data)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .type)
        switch self {
        case .bool(let bool): try container.encode(bool, forKey: .value)
        case .int(let int): try container.encode(int, forKey: .value)
        case .double(let double):
            if double.isNaN {
                try container.encode("nan", forKey: .value)
            } else if double.isInfinite {
                try container.encode(double < 0 ? "-inf" : "inf", forKey: .value)
            } else {
                try container.encode(double, forKey: .value)
            }
        case .string(let string): try container.encode(string, forKey: .value)
        case .url(let url): try container.encode(url.absoluteString, forKey: .value)
        case .data(let data): try container.encode(data.base64EncodedString(), forKey: .value)
        }
    }
}
