import Foundation

/// The JSON document a ``SceneCodableKey`` stores as `Data`: the format
/// marker, the tag, the schema version, and the model.
enum ModelDocument {
    static let format = "scenestore.model"

    /// Everything but the model, read first so that a foreign or newer
    /// document is refused before its model is decoded.
    private struct Header: Decodable {
        let format: String
        let tag: String
        let version: Int
    }

    private struct Document<Model: Codable>: Codable {
        var format: String
        var tag: String
        var version: Int
        var value: Model
    }

    static func encode<Model>(_ model: Model, for key: SceneCodableKey<Model>) throws(SceneCodableError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(Document(format: format, tag: key.tag, version: key.version, value: model))
        } catch {
            throw .unencodable(key: key.name, tag: key.tag, reason: "\(error)")
        }
    }

    /// The model `stored` holds, or the key's default when it holds nothing.
    static func decode<Model>(_ stored: SceneValue?, for key: SceneCodableKey<Model>) throws(SceneCodableError) -> Model {
        guard let stored else { return key.defaultValue }
        guard case .data(let data) = stored else { throw .wrongKind(key: key.name, stored: stored.kind) }
        return try decode(data, for: key)
    }

    /// Throws when writing a model of `key` over `stored` would erase what
    /// another tag, a newer schema or another kind of value left there.
    static func checkOverwrite<Model>(_ stored: SceneValue?, for key: SceneCodableKey<Model>) throws(SceneCodableError) {
        guard let stored else { return }
        guard case .data(let data) = stored else { throw .wrongKind(key: key.name, stored: stored.kind) }
        try check(data, for: key)
    }

    static func decode<Model>(_ data: Data, for key: SceneCodableKey<Model>) throws(SceneCodableError) -> Model {
        try check(data, for: key)
        do {
            return try JSONDecoder().decode(Document<Model>.self, from: data).value
        } catch {
            throw .undecodable(key: key.name, tag: key.tag, version: (try? header(of: data))?.version ?? 0, reason: "\(error)")
        }
    }

    /// Throws unless `data` is a document of the key's tag and a version
    /// it reads.
    static func check<Model>(_ data: Data, for key: SceneCodableKey<Model>) throws(SceneCodableError) {
        guard let header = try? header(of: data), header.format == format else { throw .notAModel(key: key.name) }
        guard header.tag == key.tag else { throw .tagMismatch(key: key.name, stored: header.tag, expected: key.tag) }
        guard header.version <= key.version else {
            throw .newerSchema(key: key.name, tag: key.tag, stored: header.version, supported: key.version)
        }
    }

    private static func header(of data: Data) throws -> Header {
        try JSONDecoder().decode(Header.self, from: data)
    }
}
