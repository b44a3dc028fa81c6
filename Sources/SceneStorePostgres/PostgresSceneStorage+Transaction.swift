#if Postgres
import Foundation
import NIOCore
import PostgresNIO
import SceneStore

extension PostgresSceneStorage {
    /// Runs `body` in a database transaction holding scene `id`'s advisory
    /// lock: `BEGIN`, the lock (waiting at most ``lockTimeout``), `body`,
    /// `pg_notify` on the app's channel if `body` changed anything, then
    /// `COMMIT`. A body that throws is rolled back: it leaves nothing.
    ///
    /// - Throws: ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``
    ///   when another connection held the lock throughout (`holderPID` is
    ///   the holder's server backend pid, from `pg_locks`);
    ///   ``SceneStoreError/storageUnavailable(location:reason:)`` when the
    ///   server fails, the commit included: nothing is durable then.
    package func transaction<Result>(
        _ id: SceneID, _ body: (any SceneStorageTransaction) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        try await inTransaction(locking: PostgresNames.lockKey(app: app, scene: id), naming: id.rawValue) {
            (session) async throws(SceneStoreError) in
            let transaction = PostgresSceneTransaction(storage: self, session: session, scene: id)
            let result = try await body(transaction)
            if transaction.changed && !transaction.notified {
                try await session.query("SELECT pg_notify(\(channel), \(id.rawValue))")
            }
            return result
        }
    }

    /// Runs `body` in a database transaction on a lent connection: `BEGIN`,
    /// the advisory lock `key` (see ``lock(_:naming:on:)``), `body`, then
    /// `COMMIT`. A body that throws is rolled back (a connection that cannot
    /// roll back is closed, not lent again).
    func inTransaction<Result>(
        locking key: Int64, naming name: String, _ body: (PostgresSession) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        let lease = try await pool.beginTransaction()
        let session = lease.session
        do throws(SceneStoreError) {
            try await lock(key, naming: name, on: session)
            let result = try await body(session)
            try await session.commit()
            lease.release(healthy: true)
            return result
        } catch {
            lease.release(healthy: await session.rollback())
            throw error
        }
    }

    /// Takes the advisory lock `key` (a scene's, named `name` in errors) in the open transaction, bounded by
    /// `lock_timeout`, the connection's (a lock wait past it fails with
    /// SQLSTATE 55P03), never by the request timeout: a lock held by
    /// others for longer than a statement may take is waiting, not a
    /// server that does not answer.
    func lock(_ key: Int64, naming name: String, on session: PostgresSession) async throws(SceneStoreError) {
        // Bounded by the connection's lock_timeout (the pool sets it when
        // it connects): no statement of its own here.
        let started = ContinuousClock.now
        do {
            _ = try await session.attempt("SELECT pg_advisory_xact_lock(\(key))", timeout: lockTimeout + requestTimeout)
        } catch where error.sqlState == "55P03" {
            let waited = ContinuousClock.now - started
            // The failed wait aborted the transaction: end it to ask who holds the lock.
            let holder = await session.rollback() ? await holderPID(of: key, on: session) : nil
            throw .lockTimeout(scene: name, holderPID: holder, waited: waited)
        } catch {
            throw .storageUnavailable(location: location, reason: error.reason)
        }
    }

    /// The server backend pid holding the advisory lock `key` in this
    /// database, if it can be told.
    private func holderPID(of key: Int64, on session: PostgresSession) async -> Int32? {
        // pg_locks shows a bigint advisory key as its two 32-bit halves.
        let bits = UInt64(bitPattern: key)
        let high = Int64(bits >> 32)
        let low = Int64(bits & 0xffff_ffff)
        let rows = try? await session.rows(
            """
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND objsubid = 1
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND classid::text::bigint = \(high) AND objid::text::bigint = \(low)
            LIMIT 1
            """,
            as: Int32.self
        )
        return rows?.first
    }
}

/// What a transaction's body may do, on the transaction's connection with
/// the scene's lock held. Valid only during the body.
final class PostgresSceneTransaction: SceneStorageTransaction {
    let storage: PostgresSceneStorage
    let session: PostgresSession
    let scene: SceneID
    /// Whether anything was written: then the commit is announced.
    private(set) var changed = false
    /// Whether a write's own statement announced it already.
    private(set) var notified = false

    init(storage: PostgresSceneStorage, session: PostgresSession, scene: SceneID) {
        self.storage = storage
        self.session = session
        self.scene = scene
    }

    private var app: String { storage.app }

    func read(after cursor: LogPosition?) async throws(SceneStoreError) -> StoredDocument {
        try await storage.read(scene, after: cursor, on: session, locking: true)
    }

    /// Upserts the document, with the version its header names (from a
    /// full decode if the header is not the usual one; none if neither
    /// reads, or the generation does not fit a bigint).
    func write(_ document: Data) async throws(SceneStoreError) {
        let version = SceneFile.peekVersion(document) ?? (try? SceneFile.decode(document).get())?.version
        let generation = version.flatMap { Int64(exactly: $0.generation) }
        let incarnation = version?.incarnation
        // The upsert and its announcement in one statement (one round trip);
        // the notification is delivered when the transaction commits.
        try await session.query(
            """
            WITH written AS (
                INSERT INTO scenestore_scenes (app, scene, document, generation, incarnation)
                VALUES (\(app), \(scene.rawValue), \(ByteBuffer(bytes: document)), \(generation), \(incarnation))
                ON CONFLICT (app, scene) DO UPDATE
                SET document = EXCLUDED.document, generation = EXCLUDED.generation, incarnation = EXCLUDED.incarnation
                RETURNING 1)
            SELECT pg_notify(\(storage.channel), \(scene.rawValue)) FROM written
            """
        )
        changed = true
        notified = true
    }

    /// The row deleted and its incarnation (the column that repeats the
    /// document's header; `lastSeen` when there is no row or the header
    /// did not read) recorded as discarded after the scene's last
    /// discards, of which the newest 31 stay, in one statement (its
    /// deletion sees the tombstones as they were before it).
    func discard(lastSeen: String?) async throws(SceneStoreError) {
        let kept = Self.discardsRemembered - 1
        try await session.query(
            """
            WITH gone AS (
                DELETE FROM scenestore_scenes WHERE app = \(app) AND scene = \(scene.rawValue) RETURNING incarnation),
            ended AS (
                SELECT coalesce((SELECT incarnation FROM gone), \(lastSeen)) AS incarnation),
            recorded AS (
                INSERT INTO scenestore_tombstones (app, scene, incarnation)
                SELECT \(app), \(scene.rawValue), incarnation FROM ended WHERE incarnation IS NOT NULL)
            DELETE FROM scenestore_tombstones WHERE app = \(app) AND scene = \(scene.rawValue) AND id NOT IN (
                SELECT id FROM scenestore_tombstones WHERE app = \(app) AND scene = \(scene.rawValue)
                ORDER BY id DESC LIMIT \(kept))
            """
        )
        changed = true
    }

    func discarded(_ incarnation: String) async throws(SceneStoreError) -> Bool {
        let rows = try await session.rows(
            """
            SELECT 1::int4 FROM scenestore_tombstones
            WHERE app = \(app) AND scene = \(scene.rawValue) AND incarnation = \(incarnation) LIMIT 1
            """, as: Int32.self
        )
        return !rows.isEmpty
    }

    /// Moves the document into `scenestore_quarantine` in one statement.
    /// - Returns: the table and the row's id, e.g. `scenestore_quarantine id 7 in postgres://…`.
    /// - Throws: ``SceneStoreError/storageUnavailable(location:reason:)``
    ///   also when there is no document to move.
    func quarantine(reason: String) async throws(SceneStoreError) -> String {
        let rows = try await session.rows(
            """
            WITH moved AS (
                DELETE FROM scenestore_scenes WHERE app = \(app) AND scene = \(scene.rawValue) RETURNING document)
            INSERT INTO scenestore_quarantine (app, scene, document, reason)
            SELECT \(app), \(scene.rawValue), document, \(reason) FROM moved
            RETURNING id
            """,
            as: Int64.self
        )
        guard let row = rows.first else {
            throw .storageUnavailable(
                location: storage.location, reason: "scene \(scene.rawValue) has no document to quarantine"
            )
        }
        changed = true
        return "scenestore_quarantine id \(row) in \(storage.location)"
    }
}
#endif
