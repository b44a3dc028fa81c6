#if Postgres
import Foundation
import NIOCore
import PostgresNIO
import SceneStore

extension PostgresSceneStorage {
    /// The save in one statement: `record` appended to the document's log
    /// where this store's last reading or record left it (the bytes of the
    /// record, not the scene's), or, when that place is not known or the
    /// log has grown past its bound, the document `base` with `record`
    /// applied, written whole (``replace(_:with:ifCurrent:)``). Either only
    /// over `base`'s version.
    ///
    /// The log's bound here is twice the whole document, without the file
    /// root's slack for small scenes: PostgreSQL rewrites the row whole on
    /// every update, so a longer log costs every save, and a whole write
    /// costs one statement like an append. At 100 keys (`bench backends`,
    /// 2026-11-29, four turns each) commits took 1.33-1.59x the floor's
    /// time with this bound against 1.56-1.69x with the slack, and
    /// propagation 1.23-1.39x against 1.35-1.49x. Writing whole every time
    /// commits no faster and makes readers read the scene whole:
    /// propagation 1.61-1.76x.
    package func commit(
        _ id: SceneID, _ record: SceneFileRecord, over base: SceneFile, using writing: SaveWriting
    ) async throws(SceneStoreError) -> Commit {
        let (frame, sizeLimit) = writing.encoder.withLock { $0.frame(of: record, over: base) }
        if let end = writing.position, end.version == base.version,
           end.offset + frame.count <= sizeLimit - SceneFile.compactionSlack,
           let from = writing.appending(frame.count, generation: record.generation, over: base.version) {
            return try await append(id, frame, at: from, generation: record.generation) ? .appended : .refused
        }
        var file = base
        guard file.apply([record]) == nil else { return .refused }
        let document = writing.encoder.withLock { $0.encode(file) }
        guard try await replace(id, with: document, ifCurrent: base.version) else { return .refused }
        return .written(end: LogPosition(written: document, version: file.version))
    }

    /// Appends `bytes` at the log's end, `position.offset`, in one
    /// autocommitted statement that also announces it, only if the row
    /// still holds `position`'s version (whose document is the one the
    /// position was read in: one version names one content) and no
    /// transaction holds the row, as ``replace(_:with:ifCurrent:)``
    /// (``SaveStatement``).
    private func append(
        _ id: SceneID, _ bytes: [UInt8], at position: LogPosition, generation: UInt64
    ) async throws(SceneStoreError) -> Bool {
        guard let kept = Int32(exactly: position.offset) else { return false }
        return try await save(id, ByteBuffer(bytes: bytes), keeping: kept, as: generation, over: position.version)
    }

    /// Runs ``SaveStatement``: `bytes` after the document's first `kept`
    /// bytes (`nil`: in its place) as `generation`, over `version`.
    private func save(
        _ id: SceneID, _ bytes: ByteBuffer, keeping kept: Int32?, as generation: UInt64, over version: DiskVersion
    ) async throws(SceneStoreError) -> Bool {
        guard let incarnation = version.incarnation, let expected = Int64(exactly: version.generation),
              let next = Int64(exactly: generation)
        else { return false }
        let statement = SaveStatement(
            bytes: bytes, kept: kept, generation: next, app: app, scene: id.rawValue,
            expectedGeneration: expected, incarnation: incarnation, channel: channel)
        let saved = try await pool.withSession { session async throws(SceneStoreError) in
            try await session.execute(statement)
        }
        return saved.first == 1
    }

    /// Replaces the scene's document in one autocommitted statement (one
    /// round trip) that announces it too (its scene id on the app's
    /// channel): only if the row still holds
    /// `version` and no transaction holds the row.
    ///
    /// A transaction locks the scene's row when it reads it
    /// (`SELECT … FOR UPDATE`, ``read(_:after:on:locking:)``), and
    /// this statement takes the row with `FOR UPDATE SKIP LOCKED`: it never
    /// lands between a transaction's read and its write, and never waits.
    /// When it did not replace (another version, no row, a locked row),
    /// the store takes the scene's lock and merges over what is stored.
    ///
    /// The statement is prepared once per connection (``SaveStatement``).
    ///
    /// A kept connection found closed is retried on another. That
    /// is safe even if the first attempt committed before the connection
    /// died: the row then holds the new version, so the retry does nothing
    /// and the locked save finds the edits stored.
    package func replace(_ id: SceneID, with document: Data, ifCurrent version: DiskVersion) async throws(SceneStoreError) -> Bool {
        // The one-statement save never begins an incarnation: a transaction does.
        guard let next = SceneFile.peekVersion(document), next.incarnation == version.incarnation else { return false }
        return try await save(id, ByteBuffer(bytes: document), keeping: nil, as: next.generation, over: version)
    }
}

/// The one-statement save of ``PostgresSceneStorage/commit(_:_:over:using:)``:
/// the document's first `kept` bytes (up to its log's end) followed by
/// `bytes`, a record, or `bytes` alone when `kept` is
/// `nil` (the document whole), only over the version given and when no
/// transaction holds the row; and the scene id announced on the app's
/// channel. Prepared once per connection, so the server plans it once,
/// not on every save.
struct SaveStatement: PostgresPreparedStatement {
    static let name = "scenestore_save_1"
    static let sql = """
        WITH current AS (
            SELECT 1 FROM scenestore_scenes
            WHERE app = $4 AND scene = $5 AND generation = $6 AND incarnation = $7
              AND octet_length(document) >= coalesce($2, 0)
            FOR UPDATE SKIP LOCKED),
        written AS (
            UPDATE scenestore_scenes
            SET document = CASE WHEN $2 IS NULL THEN $1 ELSE substring(document from 1 for $2) || $1 END, generation = $3
            WHERE app = $4 AND scene = $5 AND EXISTS (SELECT 1 FROM current)
            RETURNING 1),
        announced AS (
            SELECT pg_notify($8, $5) FROM written)
        SELECT count(*)::int4 FROM announced
        """
    static let bindingDataTypes: [PostgresDataType] = [.bytea, .int4, .int8, .text, .text, .int8, .text, .text]
    typealias Row = Int32

    let bytes: ByteBuffer
    let kept: Int32?
    let generation: Int64
    let app: String
    let scene: String
    let expectedGeneration: Int64
    let incarnation: String
    let channel: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(bytes)
        bindings.append(kept)
        bindings.append(generation)
        bindings.append(app)
        bindings.append(scene)
        bindings.append(expectedGeneration)
        bindings.append(incarnation)
        bindings.append(channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int32 {
        try row.decode(Int32.self)
    }
}
#endif
