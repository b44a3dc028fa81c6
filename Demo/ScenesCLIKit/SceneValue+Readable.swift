import Foundation
import SceneStore

extension SceneValue {
    /// The value for a person to read: a stored model
    /// (``SceneCodableKey``: `{"format":"scenestore.model","tag":…}`) or a
    /// navigation path (SceneNavigation's `{"elements":[…],"version":…}`)
    /// as the JSON it is stored as, instead of base64; anything else as
    /// `description` gives it (the form `scenes set` takes).
    package var readableDescription: String {
        storedDocumentText ?? description
    }

    /// The JSON text of a stored model or a navigation path this value
    /// holds as `Data`, or `nil`.
    package var storedDocumentText: String? {
        guard case .data(let data) = self, data.first == UInt8(ascii: "{"),
              let probe = try? JSONDecoder().decode(DocumentProbe.self, from: data),
              probe.format == ModelDocument.format || (probe.elements != nil && probe.version != nil)
        else { return nil }
        return String(data: data, encoding: .utf8)
    }
}

/// The top-level fields that tell a stored model or a path document.
private struct DocumentProbe: Decodable {
    var format: String?
    var version: Int?
    var elements: [AnyElement]?

    /// An element of any JSON shape, left unread.
    struct AnyElement: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}

extension SceneChange {
    /// `key: old -> new (origin, generation)`, values as
    /// ``SceneValue/readableDescription`` gives them.
    package var readableDescription: String {
        let from = oldValue?.readableDescription ?? "(none)"
        let to = newValue?.readableDescription ?? "(removed)"
        return "\(key): \(from) -> \(to) (\(originDescription))"
    }
}
