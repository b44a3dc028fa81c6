#if Postgres
import Foundation
import NIOCore
import PostgresNIO
import SceneStore

extension PostgresSceneStorage {
    /// Offered: a save over the version a store holds is one statement.
    package var replacesConditionally: Bool { true }

    /// Replaces the scene's document in one autocommitted statement (one
    /// round trip) that announces it too (its scene id on the app's
    /// channel, after the document on the document channel when it fits a
    /// ``PostgresNotice``): only if the row still holds
    /// `version` and no transaction holds the row.
    ///
    /// A transaction locks the scene's row when it reads it
    /// (`SELECT … FOR UPDATE`, ``readDocument(_:on:skip:locking:)``), and
    /// this statement takes the row with `FOR UPDATE SKIP LOCKED`: it never
    /// lands between a transaction's read and its write, and never waits.
    /// When it did not replace (another version, no row, a locked row),
    /// the store takes the scene's lock and merges over what is stored.
    ///
    /// A kept connection found closed is retried once on a new one. That
    /// is safe even if the first attempt committed before the connection
    /// died: the row then holds the new version, so the retry does nothing
    /// and the locked save finds the edits stored.
    package func replace(_ id: SceneID, with document: Data, ifCurrent version: DiskVersion) async throws(SceneStoreError) -> Bool {
        guard let incarnation = version.incarnation, let generation = Int64(exactly: version.generation),
              let next = SceneFile.peekVersion(document), let nextGeneration = Int64(exactly: next.generation)
        else { return false }
        let notice = PostgresNotice.payload(id, document)
        let replaced = try await pool.withSession { session async throws(SceneStoreError) in
            try await session.rows(
                """
                WITH current AS (
                    SELECT 1 FROM scenestore_scenes
                    WHERE app = \(app) AND scene = \(id.rawValue) AND generation = \(generation) AND incarnation = \(incarnation)
                    FOR UPDATE SKIP LOCKED),
                written AS (
                    UPDATE scenestore_scenes
                    SET document = \(ByteBuffer(bytes: document)), generation = \(nextGeneration), incarnation = \(next.incarnation)
                    WHERE app = \(app) AND scene = \(id.rawValue) AND EXISTS (SELECT 1 FROM current)
                    RETURNING 1),
                announced AS (
                    SELECT CASE WHEN \(notice)::text IS NOT NULL THEN pg_notify(\(documentChannel), \(notice)) END,
                           pg_notify(\(channel), \(id.rawValue))
                    FROM written)
                SELECT count(*)::int4 FROM announced
                """,
                as: Int32.self
            )
        }
        return replaced.first == 1
    }
}
#endif
