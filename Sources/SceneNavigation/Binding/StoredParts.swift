import Foundation

/// A stored path document read without knowing its element types: the
/// path's elements and, for a ``NavigationHistory``, its forward entries
/// (a stack: the last is the next) and its recently viewed screens (a
/// stack: the last is the newest). A plain path has neither.
///
/// ```json
/// {"elements":[...],"forward":[...],"recent":[...],"version":1}
/// ```
///
/// `forward` and `recent` are written only when not empty, so a history
/// with neither is stored exactly as its path is, and a reader that knows
/// only paths (an older version) reads the path of a history.
struct StoredParts: Equatable {
    var elements: [StoredElement]
    var forward: [StoredElement] = []
    var recent: [StoredElement] = []

    /// The parts of `data`, or `nil` if it is not a path document.
    init?(of data: Data) {
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else { return nil }
        self = document.parts
    }

    init(elements: [StoredElement], forward: [StoredElement] = [], recent: [StoredElement] = []) {
        self.elements = elements
        self.forward = forward
        self.recent = recent
    }

    /// The document holding these parts, with the same bytes as a path's
    /// own encoding when `forward` and `recent` are empty.
    func encoded() throws(ScenePathError) -> Data {
        try Data(PathDocument.encodeAlone(Document(parts: self)))
    }

    private enum Key: String, CodingKey {
        case version, elements, forward, recent
    }

    private struct Document: Codable {
        var parts: StoredParts

        init(parts: StoredParts) {
            self.parts = parts
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let version = try container.decode(Int.self, forKey: .version)
            guard version == PathDocument.currentVersion else {
                throw PathDocument.InvalidVersion(version: version)
            }
            parts = StoredParts(
                elements: try container.decode([StoredElement].self, forKey: .elements),
                forward: try container.decodeIfPresent([StoredElement].self, forKey: .forward) ?? [],
                recent: try container.decodeIfPresent([StoredElement].self, forKey: .recent) ?? [])
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(PathDocument.currentVersion, forKey: .version)
            try container.encode(parts.elements, forKey: .elements)
            if !parts.forward.isEmpty { try container.encode(parts.forward, forKey: .forward) }
            if !parts.recent.isEmpty { try container.encode(parts.recent, forKey: .recent) }
        }
    }
}
