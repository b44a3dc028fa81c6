import Foundation

/// A value as it is written in a scene file:
/// `{"type": "int", "value": 5}`. Doubles that JSON cannot hold are written
/// as the strings `"nan"`, `"inf"` and `"-inf"`; Data is base64; URLs are
/// their absolute string.
struct StoredValue: Codable, Equatable {
    let value: SceneValue

    init(_ value: SceneValue) {
        self.value = value
    }

    private enum CodingKeys: String, CodingKey {
        case type, value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(SceneValue.Kind.self, forKey: .type)
        switch kind {
        case .bool:
            value = .bool(try container.decode(Bool.self, forKey: .value))
        case .int:
            value = .int(try container.decode(Int.self, forKey: .value))
        case .double:
            if let text = try? container.decode(String.self, forKey: .value) {
                switch text {
                case "nan": value = .double(.nan)
                case "inf": value = .double(.infinity)
                case "-inf": value = .double(-.infinity)
                default:
                    throw DecodingError.dataCorruptedError(
                        forKey: .value, in: container, debugDescription: "not a double: \(text)")
                }
            } else {
                value = .double(try container.decode(Double.self, forKey: .value))
            }
        case .string:
            value = .string(try container.decode(String.self, forKey: .value))
        case .url:
            let text = try container.decode(String.self, forKey: .value)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "not a URL: \(text)")
            }
            value = .url(url)
        case .data:
            let text = try container.decode(String.self, forKey: .value)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "not base64")
            }
            value = .data(data)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value.kind, forKey: .type)
        switch value {
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
