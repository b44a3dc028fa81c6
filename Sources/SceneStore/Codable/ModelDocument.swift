import Foundation

/// The JSON document a ``SceneCodableKey`` stores as `Data`: the format
/// marker, the tag, the schema version, and the model.
package enum ModelDocument {
    package static let format = "scenestore.model"

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
        try read(data, for: key).model
    }

    /// The model `data` holds, carried through the key's migrations when
    /// it was stored by an older version.
    /// - Returns: the model, and for an older version the document of the
    ///   key's version to write back.
    static func read<Model>(
        _ data: Data, for key: SceneCodableKey<Model>
    ) throws(SceneCodableError) -> (model: Model, migrated: Data?) {
        let stored = try check(data, for: key)
        guard stored < key.version else {
            do {
                return (try JSONDecoder().decode(Document<Model>.self, from: data).value, nil)
            } catch {
                throw .undecodable(key: key.name, tag: key.tag, version: stored, reason: "\(error)")
            }
        }
        var json = try modelJSON(of: data, for: key, version: stored)
        for migration in key.migrations where migration.from >= stored {
            do {
                json = try migration.run(json)
            } catch {
                throw .migrationFailed(key: key.name, tag: key.tag, version: migration.from, reason: "\(error)")
            }
        }
        let model: Model
        do {
            model = try JSONDecoder().decode(Model.self, from: json)
        } catch {
            throw .undecodable(key: key.name, tag: key.tag, version: stored, reason: "\(error)")
        }
        return (model, try encode(model, for: key))
    }

    /// The JSON of the model alone, as its version wrote it.
    private static func modelJSON<Model>(
        of data: Data, for key: SceneCodableKey<Model>, version: Int
    ) throws(SceneCodableError) -> Data {
        let document: Any
        do {
            document = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .undecodable(key: key.name, tag: key.tag, version: version, reason: "\(error)")
        }
        guard let value = (document as? [String: Any])?["value"] else {
            throw .undecodable(key: key.name, tag: key.tag, version: version, reason: "the document holds no value")
        }
        do {
            return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        } catch {
            throw .undecodable(key: key.name, tag: key.tag, version: version, reason: "\(error)")
        }
    }

    /// Throws unless `data` is a document of the key's tag and a version
    /// it reads.
    /// - Returns: the version that stored it.
    @discardableResult
    static func check<Model>(_ data: Data, for key: SceneCodableKey<Model>) throws(SceneCodableError) -> Int {
        guard let header = try? header(of: data), header.format == format else { throw .notAModel(key: key.name) }
        guard header.tag == key.tag else { throw .tagMismatch(key: key.name, stored: header.tag, expected: key.tag) }
        guard header.version <= key.version else {
            throw .newerSchema(key: key.name, tag: key.tag, stored: header.version, supported: key.version)
        }
        return header.version
    }

    /// Whether `stored` may be replaced by a model of `key`: nothing, or a
    /// model of the key's tag and a version it reads (or that no longer
    /// decodes). What a save checks again under the scene's lock.
    static func mayReplace<Model>(_ stored: SceneValue?, for key: SceneCodableKey<Model>) -> Bool {
        (try? checkOverwrite(stored, for: key)) != nil
    }

    private static func header(of data: Data) throws -> Header {
        try JSONDecoder().decode(Header.self, from: data)
    }
}
