import Foundation

/// The JSON document a model's ``SceneKey`` stores as `Data`: the format
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

    static func encode<Model: Codable>(_ model: Model, _ schema: ModelSchema) throws(SceneStoreError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let document = Document(format: format, tag: schema.tag, version: schema.version, value: model)
        do {
            try EncodingDepth.check(document)
            return try encoder.encode(document)
        } catch {
            throw .unencodableModel(key: schema.name, tag: schema.tag, reason: "\(error)")
        }
    }

    /// The model `data` holds, carried through the schema's migrations
    /// when it was stored by an older version.
    /// - Returns: the model, and for an older version the document of the
    ///   schema's version to write back.
    static func read<Model: Codable>(
        _ data: Data, as type: Model.Type, _ schema: ModelSchema
    ) throws(SceneStoreError) -> (model: Model, migrated: Data?) {
        let stored = try check(data, schema)
        guard stored < schema.version else {
            do {
                return (try JSONDecoder().decode(Document<Model>.self, from: data).value, nil)
            } catch {
                throw unreadable(schema, "version \(stored) no longer decodes: \(error)")
            }
        }
        var json = try modelJSON(of: data, schema, version: stored)
        for migration in schema.migrations where migration.from >= stored {
            do {
                json = try migration.run(json)
            } catch {
                throw unreadable(schema, "the migration from version \(migration.from) failed: \(error)")
            }
        }
        let model: Model
        do {
            model = try JSONDecoder().decode(Model.self, from: json)
        } catch {
            throw unreadable(schema, "version \(stored), migrated, no longer decodes: \(error)")
        }
        return (model, try encode(model, schema))
    }

    private static func unreadable(_ schema: ModelSchema, _ reason: String) -> SceneStoreError {
        .unreadableModel(key: schema.name, tag: schema.tag, reason: reason)
    }

    /// The JSON of the model alone, as its version wrote it.
    private static func modelJSON(of data: Data, _ schema: ModelSchema, version: Int) throws(SceneStoreError) -> Data {
        do {
            guard let value = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["value"] else {
                throw unreadable(schema, "version \(version) holds no value")
            }
            return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        } catch let error as SceneStoreError {
            throw error
        } catch {
            throw unreadable(schema, "version \(version) is not JSON: \(error)")
        }
    }

    /// Throws unless `data` is a document of the schema's tag and a
    /// version it reads.
    /// - Returns: the version that stored it.
    @discardableResult
    static func check(_ data: Data, _ schema: ModelSchema) throws(SceneStoreError) -> Int {
        guard let header = try? JSONDecoder().decode(Header.self, from: data), header.format == format else {
            throw unreadable(schema, "the data is not a stored model")
        }
        guard header.tag == schema.tag else {
            throw unreadable(schema, "the model is tagged \(header.tag.debugDescription)")
        }
        guard header.version <= schema.version else {
            throw .newerModel(key: schema.name, tag: schema.tag, stored: header.version, supported: schema.version)
        }
        return header.version
    }

    /// Whether `stored` may be replaced by a model of `schema`: nothing,
    /// or a model of the schema's tag and a version it reads (or that no
    /// longer decodes). What a save checks again under the scene's lock.
    static func mayReplace(_ stored: SceneValue?, _ schema: ModelSchema) -> Bool {
        guard let stored else { return true }
        guard case .data(let data) = stored else { return false }
        return (try? check(data, schema)) != nil
    }
}
