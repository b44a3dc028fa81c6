import Foundation
import SceneStore

/// A value as the demo's JSON lines write it (`scenes watch --json`,
/// `probe follow`, the benchmarks' scenes): `{"type": "int", "value": 5}`,
/// the value as `SceneValueJSON` spells it. The library keeps its values in
/// its own format and does not make `SceneValue` Codable.
extension SceneValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(SceneValue.Kind.self, forKey: .type)
        let json: SceneValueJSON
        if kind == .bool {
            json = .bool(try container.decode(Bool.self, forKey: .value))
        } else if let text = try? container.decode(String.self, forKey: .value) {
            json = .string(text)
        } else if kind == .int {
            json = .number(String(try container.decode(Int.self, forKey: .value)))
        } else {
            json = .number(String(try container.decode(Double.self, forKey: .value)))
        }
        guard let value = json.value(as: kind) else {
            throw DecodingError.dataCorruptedError(
                forKey: .value, in: container, debugDescription: "not a valid \(kind.rawValue): \(json)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .type)
        switch SceneValueJSON(self) {
        case .bool(let bool): try container.encode(bool, forKey: .value)
        case .string(let text): try container.encode(text, forKey: .value)
        case .number:
            switch self {
            case .int(let int): try container.encode(int, forKey: .value)
            case .double(let double): try container.encode(double, forKey: .value)
            default: break
            }
        }
    }
}
