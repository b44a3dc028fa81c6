#if Postgres
import Foundation
import NIOCore
import PostgresNIO
import SceneStore

extension PostgresSceneStorage {
    /// The document, `base` with `record` applied, written by
    /// ``replace(_:with:ifCurrent:)``: one statement.
    package func commit(
        _ id: SceneID, _ record: SceneFileRecord, over base: SceneFile, using writing: SaveWriting
    ) async throws(SceneStoreError) -> Bool {
        var file = base
        guard file.apply([record]) == nil else { return false }
        let edited = record.removed + record.set.map(\.0)
        let document = writing.encoder.withLock { $0.encode(file, over: base, edited: edited) }
        return try await replace(id, with: document, ifCurrent: base.version)
    }

    /// Replaces the scene's document in one autocommitted statement (one
    /// round trip) that announces it too (its scene id on the app's
    /// channel): only if the row still holds
    /// `version` and no transaction holds the row.
    ///
    /// A transaction locks the scene's row when it reads it
    /// (`SELECT … FOR UPDATE`, ``readDocument(_:on:skip:locking:)``), and
    /// this statement takes the row with `FOR UPDATE SKIP LOCKED`: it never
    /// lands between a transaction's read and its write, and never waits.
    /// When it did not replace (another version, no row, a locked row),
    /// the store takes the scene's lock and merges over what is stored.
    ///
    /// The statement is prepared once per connection (``ReplaceStatement``).
    ///
    /// A kept connection found closed is retried on another. That
    /// is safe even if the first attempt committed before the connection
    /// died: the row then holds the new version, so the retry does nothing
    /// and the locked save finds the edits stored.
    package func replace(_ id: SceneID, with document: Data, ifCurrent version: DiskVersion) async throws(SceneStoreError) -> Bool {
        guard let incarnation = version.incarnation, let generation = Int64(exactly: version.generation),
              let next = SceneFile.peekVersion(document), let nextGeneration = Int64(exactly: next.generation),
              let nextIncarnation = next.incarnation
        else { return false }
        let statement = ReplaceStatement(
            document: ByteBuffer(bytes: document), generation: nextGeneration, incarnation: nextIncarnation,
            app: app, scene: id.rawValue, expectedGeneration: generation, expectedIncarnation: incarnation,
            channel: channel)
        let replaced = try await pool.withSession { session async throws(SceneStoreError) in
            try await session.execute(statement)
        }
        return replaced.first == 1
    }
}

/// The one-statement save of ``PostgresSceneStorage/replace(_:with:ifCurrent:)``:
/// the document replaced only over the version given, and its scene id
/// announced on the app's channel. Prepared once per
/// connection, so the server plans it once, not on every save.
struct ReplaceStatement: PostgresPreparedStatement {
    static let name = "scenestore_replace_2"
    static let sql = """
        WITH current AS (
            SELECT 1 FROM scenestore_scenes
            WHERE app = $4 AND scene = $5 AND generation = $6 AND incarnation = $7
            FOR UPDATE SKIP LOCKED),
        written AS (
            UPDATE scenestore_scenes SET document = $1, generation = $2, incarnation = $3
            WHERE app = $4 AND scene = $5 AND EXISTS (SELECT 1 FROM current)
            RETURNING 1),
        announced AS (
            SELECT pg_notify($8, $5) FROM written)
        SELECT count(*)::int4 FROM announced
        """
    static let bindingDataTypes: [PostgresDataType] = [.bytea, .int8, .text, .text, .text, .int8, .text, .text]
    typealias Row = Int32

    let document: ByteBuffer
    let generation: Int64
    let incarnation: String
    let app: String
    let scene: String
    let expectedGeneration: Int64
    let expectedIncarnation: String
    let channel: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(document)
        bindings.append(generation)
        bindings.append(incarnation)
        bindings.append(app)
        bindings.append(scene)
        bindings.append(expectedGeneration)
        bindings.append(expectedIncarnation)
        bindings.append(channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int32 {
        try row.decode(Int32.self)
    }
}
#endif
