#if Postgres
import Foundation
import PostgresNIO
import SceneStore

/// The database's window lifecycle (see ``PostgresSchema``): records in
/// `scenestore_sessions`, changed in a transaction holding the app's
/// sessions lock; a claim is a session-level advisory lock held by a
/// connection of its own, which the server drops when that connection
/// ends; which windows are held is one query joined with `pg_locks`.
extension PostgresSceneStorage: SceneSessionStorage {
    package func claim(_ id: SceneID) async throws(SceneStoreError) -> (any SceneClaim)? {
        let key = PostgresNames.claimKey(app: app, scene: id)
        // A connection of its own, outside the pool: it holds the claim
        // for as long as the window is open.
        let session = try await PostgresSession.connect(to: database, on: eventLoop, timeout: requestTimeout, logger: logger)
        do {
            let taken = try await session.rows("SELECT pg_try_advisory_lock(\(key))", as: Bool.self).first ?? false
            guard taken else {
                session.close()
                return nil
            }
            return PostgresClaim(session: session, key: key)
        } catch {
            session.close()
            throw error
        }
    }

    package func sessionRecords() async throws(SceneStoreError) -> [(record: SessionRecord, held: Bool)] {
        let rows = try await pool.withSession { session async throws(SceneStoreError) in
            try await session.rows(
                """
                SELECT s.scene, s.created, s.last_active, s.open, s.pid, s.title,
                       EXISTS (SELECT 1 FROM pg_locks l
                               WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                                 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                                 AND l.classid::text::bigint = (s.claim_key >> 32) & 4294967295
                                 AND l.objid::text::bigint = s.claim_key & 4294967295)
                FROM scenestore_sessions s WHERE s.app = \(app)
                """,
                as: (String, Int64, Int64, Bool, Int32?, String?, Bool).self
            )
        }
        return rows.compactMap { row in
            let (scene, created, lastActive, open, pid, title, held) = row
            return Self.record(scene, created, lastActive, open, pid, title).map { ($0, held) }
        }
    }

    package func updateSessionRecords(
        _ ids: Set<SceneID>, _ change: @Sendable (inout [SceneID: SessionRecord]) -> Void
    ) async throws(SceneStoreError) {
        guard !ids.isEmpty else { return }
        let names = ids.map(\.rawValue)
        try await inTransaction(locking: PostgresNames.sessionsLockKey(app: app), naming: "scenestore-sessions") {
            (session) async throws(SceneStoreError) in
            let rows = try await session.rows(
                """
                SELECT scene, created, last_active, open, pid, title FROM scenestore_sessions
                WHERE app = \(app) AND scene = ANY(\(names))
                """,
                as: (String, Int64, Int64, Bool, Int32?, String?).self
            )
            var records: [SceneID: SessionRecord] = [:]
            for row in rows {
                guard let record = Self.record(row.0, row.1, row.2, row.3, row.4, row.5) else { continue }
                records[record.id] = record
            }
            let before = records
            change(&records)
            for id in ids where records[id] != before[id] {
                if let record = records[id] {
                    try await upsert(record, on: session)
                } else {
                    try await session.query("DELETE FROM scenestore_sessions WHERE app = \(app) AND scene = \(id.rawValue)")
                }
            }
        }
    }

    /// A row of `scenestore_sessions` (scene, created, last_active, open,
    /// pid, title); `nil` for a scene id this code does not accept.
    private static func record(
        _ scene: String, _ created: Int64, _ lastActive: Int64, _ open: Bool, _ pid: Int32?, _ title: String?
    ) -> SessionRecord? {
        guard let id = try? SceneID(scene) else { return nil }
        return SessionRecord(
            id: id, created: SessionRecord.date(milliseconds: created),
            lastActive: SessionRecord.date(milliseconds: lastActive), open: open, pid: pid, title: title)
    }

    /// A claim leaves nothing behind in the database.
    package func removeClaim(_ id: SceneID) async {}

    private func upsert(_ record: SessionRecord, on session: PostgresSession) async throws(SceneStoreError) {
        let created = SessionRecord.milliseconds(record.created)
        let lastActive = SessionRecord.milliseconds(record.lastActive)
        let key = PostgresNames.claimKey(app: app, scene: record.id)
        try await session.query(
            """
            INSERT INTO scenestore_sessions (app, scene, created, last_active, open, pid, title, claim_key)
            VALUES (\(app), \(record.id.rawValue), \(created), \(lastActive), \(record.open), \(record.pid), \(record.title), \(key))
            ON CONFLICT (app, scene) DO UPDATE SET created = EXCLUDED.created, last_active = EXCLUDED.last_active,
                open = EXCLUDED.open, pid = EXCLUDED.pid, title = EXCLUDED.title, claim_key = EXCLUDED.claim_key
            """
        )
    }
}

/// A window scene claimed by a connection of its own, holding the
/// session-level advisory lock until released or closed.
private final class PostgresClaim: SceneClaim {
    private let session: PostgresSession
    private let key: Int64

    init(session: PostgresSession, key: Int64) {
        self.session = session
        self.key = key
    }

    func release() async {
        _ = try? await session.query("SELECT pg_advisory_unlock(\(key))")
        session.close()
    }

    func abandon() {
        session.close()
    }

    deinit { session.close() }
}
#endif
