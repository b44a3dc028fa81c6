import Foundation

/// The contents of one scene file, format version 1:
///
/// ```json
/// {
///   "checksum" : "fnv1a64:…",
///   "format" : "scenestore.scene",
///   "generation" : 7,
///   "incarnation" : "…",
///   "scene" : "main",
///   "values" : { "selectedTab" : { "type" : "int", "value" : 2 } },
///   "version" : 1,
///   "writer" : { "pid" : 4242, "token" : "…" }
/// }
/// ```
///
/// `generation` grows by one with every save; `incarnation` is chosen when
/// the file is first created (again after a discard), so generations are
/// only compared within one incarnation. `checksum` covers the compact,
/// key-sorted JSON encoding of `values`.
struct SceneFile: Equatable {
    static let magic = "scenestore.scene"
    static let currentVersion = 1

    var scene: String
    var generation: UInt64
    var incarnation: String
    var writer: WriterIdentity
    var values: [String: SceneValue]

    /// Why bytes on disk are not a loadable scene.
    enum Problem: Error, Equatable {
        /// Not a scene file: not JSON, truncated, wrong magic, missing fields.
        case malformed(String)
        /// The payload does not match its checksum.
        case badChecksum
        /// A newer format than this code knows: refuse, never destroy.
        case newerVersion(Int)
    }

    func encoded() throws -> Data {
        let document = Document(
            format: Self.magic,
            version: Self.currentVersion,
            scene: scene,
            generation: generation,
            incarnation: incarnation,
            writer: writer,
            checksum: try Self.checksum(of: values),
            values: values
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(document)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    static func decode(_ data: Data) -> Result<SceneFile, Problem> {
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: data) else {
            return .failure(.malformed("not a JSON scene file header"))
        }
        guard header.format == magic else {
            return .failure(.malformed("format is \(header.format.debugDescription), not \(magic)"))
        }
        guard header.version <= currentVersion else {
            return .failure(.newerVersion(header.version))
        }
        let document: Document
        do {
            document = try decoder.decode(Document.self, from: data)
        } catch {
            return .failure(.malformed(String(describing: error)))
        }
        guard let checksum = try? checksum(of: document.values), checksum == document.checksum else {
            return .failure(.badChecksum)
        }
        return .success(SceneFile(
            scene: document.scene,
            generation: document.generation,
            incarnation: document.incarnation,
            writer: document.writer,
            values: document.values
        ))
    }

    private static func checksum(of values: [String: SceneValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Checksum.fnv1a64(try encoder.encode(values))
    }

    private struct Header: Decodable {
        let format: String
        let version: Int
    }

    private struct Document: Codable {
        let format: String
        let version: Int
        let scene: String
        let generation: UInt64
        let incarnation: String
        let writer: WriterIdentity
        let checksum: String
        let values: [String: SceneValue]
    }
}

/// Who wrote a scene file: the process and one registry instance in it.
struct WriterIdentity: Codable, Equatable, Sendable {
    let pid: Int32
    let token: String

    static func current() -> WriterIdentity {
        WriterIdentity(pid: getpid(), token: randomToken())
    }
}

/// 16 random hex digits.
func randomToken() -> String {
    let value = UInt64.random(in: .min ... .max)
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
