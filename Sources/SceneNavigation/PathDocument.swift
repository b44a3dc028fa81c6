import Foundation
import SceneStore

/// The wire format shared by type-erased paths and typed stacks:
///
/// ```json
/// {"elements":[{"tag":"int","value":5},{"tag":"book","value":{"title":"Dune"}}],"version":1}
/// ```
///
/// Typed stacks store each element's JSON directly (no tag record). Keys are
/// sorted and slashes are not escaped, so the same elements always give the
/// same bytes, provided each element's own `encode(to:)` is deterministic
/// (a `Set` is not; and `Double`'s `0.0 == -0.0` encode differently).
enum PathDocument {
    /// The format version written, and the only one read.
    static let currentVersion = 1

    enum DocumentKey: String, CodingKey {
        case version
        case elements
    }

    enum RecordKey: String, CodingKey {
        case tag
        case value
    }

    /// Where a decoder finds the registry while decoding tagged records.
    static let typesKey = CodingUserInfoKey(rawValue: "SceneNavigation.ScenePathTypes")

    /// Encodes a document whose element list holds `records`.
    ///
    /// - Throws: The ``ScenePathError`` a record threw, or
    ///   ``ScenePathError/unencodableElement(tag:position:underlying:)``
    ///   without a position for anything else.
    static func encode<Record: Encodable>(_ records: [Record]) throws(ScenePathError) -> Data {
        try Data(encodeAlone(Document(records: records)))
    }

    /// `value` as JSON on its own, written as within a document.
    static func encodeAlone(_ value: some Encodable) throws(ScenePathError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            try EncodingDepth.check(value)
            return Array(try encoder.encode(value))
        } catch let error as ScenePathError {
            throw error
        } catch {
            throw .unencodableElement(tag: nil, position: nil, underlying: error)
        }
    }

    /// One record decoded on its own with `types`; `nil` when its bytes
    /// are not JSON.
    static func decodeAlone(_ record: [UInt8], types: ScenePathTypes) -> TaggedRecordIn? {
        let decoder = JSONDecoder()
        if let typesKey { decoder.userInfo[typesKey] = types }
        return try? decoder.decode(TaggedRecordIn.self, from: Data(record))
    }

    /// Decodes the element list of a document, one `Record` per element.
    ///
    /// `Record.init(from:)` must not throw, so that one bad element does not
    /// stop the others from being read.
    ///
    /// - Throws: ``ScenePathError/unsupportedVersion(_:)`` for a newer format,
    ///   ``ScenePathError/corruptData(underlying:)`` for anything that is not
    ///   a document.
    static func decode<Record: Decodable>(
        _ record: Record.Type,
        from data: Data,
        types: ScenePathTypes? = nil
    ) throws(ScenePathError) -> [Record] {
        let decoder = JSONDecoder()
        if let types, let typesKey {
            decoder.userInfo[typesKey] = types
        }
        do {
            return try decoder.decode(Document<Record>.self, from: data).records
        } catch let error as ScenePathError {
            throw error
        } catch {
            throw .corruptData(underlying: error)
        }
    }

    fileprivate struct Document<Record> {
        var records: [Record]
    }

    /// Thrown when a document's version is older than any this code knows.
    struct InvalidVersion: Error, CustomStringConvertible {
        var version: Int
        var description: String { "invalid format version \(version)" }
    }
}

extension PathDocument.Document: Encodable where Record: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PathDocument.DocumentKey.self)
        try container.encode(PathDocument.currentVersion, forKey: .version)
        try container.encode(records, forKey: .elements)
    }
}

extension PathDocument.Document: Decodable where Record: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: PathDocument.DocumentKey.self)
        let version = try container.decode(Int.self, forKey: .version)
        if version > PathDocument.currentVersion {
            throw ScenePathError.unsupportedVersion(version)
        }
        guard version == PathDocument.currentVersion else {
            throw PathDocument.InvalidVersion(version: version)
        }
        var elements = try container.nestedUnkeyedContainer(forKey: .elements)
        var records: [Record] = []
        while !elements.isAtEnd {
            records.append(try elements.decode(Record.self))
        }
        self.records = records
    }
}

// MARK: - Tagged records (type-erased paths)

/// One element of a ``ScenePath`` on its way out: its tag and its value.
struct TaggedRecordOut: Encodable {
    var position: Int
    var tag: String
    var value: any ScenePathElement

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PathDocument.RecordKey.self)
        try container.encode(tag, forKey: .tag)
        do {
            try container.encode(value, forKey: .value)
        } catch {
            throw ScenePathError.unencodableElement(tag: tag, position: position, underlying: error)
        }
    }
}

/// One element of a ``ScenePath`` on its way in. Decoding never throws: the
/// outcome records the element, or why it could not be restored.
struct TaggedRecordIn: Decodable {
    enum Outcome: Sendable {
        case element(any ScenePathElement)
        case unknownTag(String)
        case undecodable(tag: String?, underlying: any Error)
    }

    var outcome: Outcome

    struct MissingRegistry: Error {}

    init(from decoder: any Decoder) {
        let types = PathDocument.typesKey.flatMap { decoder.userInfo[$0] as? ScenePathTypes }
        guard let types else {
            outcome = .undecodable(tag: nil, underlying: MissingRegistry())
            return
        }
        let container: KeyedDecodingContainer<PathDocument.RecordKey>
        let tag: String
        do {
            container = try decoder.container(keyedBy: PathDocument.RecordKey.self)
            tag = try container.decode(String.self, forKey: .tag)
        } catch {
            outcome = .undecodable(tag: nil, underlying: error)
            return
        }
        // The registry is the only way from a tag to a type: an unclaimed tag
        // leaves its value unread.
        guard let registration = types.registration(forTag: tag) else {
            outcome = .unknownTag(tag)
            return
        }
        do {
            outcome = .element(try registration.decodeValue(container))
        } catch {
            outcome = .undecodable(tag: tag, underlying: error)
        }
    }
}

// MARK: - Typed records (typed stacks)

/// One element of a typed stack on its way out.
struct TypedRecordOut<Element: Encodable>: Encodable {
    var position: Int
    var value: Element

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        do {
            try container.encode(value)
        } catch {
            throw ScenePathError.unencodableElement(tag: nil, position: position, underlying: error)
        }
    }
}

/// One element of a typed stack on its way in. Decoding never throws.
struct TypedRecordIn<Element: Decodable>: Decodable {
    var result: Result<Element, any Error>

    init(from decoder: any Decoder) {
        do {
            result = .success(try decoder.singleValueContainer().decode(Element.self))
        } catch {
            result = .failure(error)
        }
    }
}
