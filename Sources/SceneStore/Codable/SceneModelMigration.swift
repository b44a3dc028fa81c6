import Foundation

/// One step of a model key's schema history
/// (``SceneKey/init(_:tag:version:default:migrations:)``): how a model
/// stored at version `from` becomes the model of version `from + 1`.
///
/// Steps chain: a key of version 3 with steps from 1 and from 2 reads a
/// version 1 model by running both, in order. A version with no step of
/// its own is carried to the next as it is (a version that only added an
/// optional property needs none).
///
/// ```swift
/// struct LayoutV1: Codable { var width: Int }
/// struct Layout: Codable, Sendable { var sidebarWidth: Int; var columns: Int }
/// extension SceneKey where Value == Layout {
///     static var layout: Self {
///         .init("layout", tag: "layout", version: 2, default: Layout(sidebarWidth: 240, columns: 2), migrations: [
///             .from(1) { (old: LayoutV1) in Layout(sidebarWidth: old.width, columns: 2) },
///         ])
///     }
/// }
/// ```
///
/// A step gets the model's JSON as its version wrote it and returns the
/// next version's: as types (``from(_:_:)``, the old type decoded, the new
/// one encoded) or as raw JSON (``from(_:json:)``). It runs whenever a
/// stored model of an older version is read, so it must not depend on
/// anything but its input.
public struct SceneModelMigration: Sendable {
    /// The version this step reads; it writes `from + 1`.
    let from: Int
    /// The model's JSON at `from` to its JSON at `from + 1`.
    let run: @Sendable (Data) throws -> Data

    private init(from: Int, run: @escaping @Sendable (Data) throws -> Data) {
        self.from = from
        self.run = run
    }

    /// A step as types: the model stored at `version` is decoded as `Old`,
    /// `transform` makes the `New` of version `version + 1`, which is
    /// encoded for the next step (or decoded as the key's model after the
    /// last one).
    public static func from<Old: Decodable & Sendable, New: Encodable & Sendable>(
        _ version: Int, _ transform: @escaping @Sendable (Old) throws -> New
    ) -> Self {
        Self(from: version) { json in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let migrated = try transform(JSONDecoder().decode(Old.self, from: json))
            try EncodingDepth.check(migrated)
            return try encoder.encode(migrated)
        }
    }

    /// A step as raw JSON: `transform` gets the model's JSON as version
    /// `version` wrote it (the model alone, not the document around it)
    /// and returns the JSON of version `version + 1`.
    public static func from(_ version: Int, json transform: @escaping @Sendable (Data) throws -> Data) -> Self {
        Self(from: version, run: transform)
    }
}
