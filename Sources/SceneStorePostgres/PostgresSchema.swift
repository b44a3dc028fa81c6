#if Postgres
import PostgresNIO
import SceneStore

/// The tables SceneStore keeps in a database, version 1. Every row belongs
/// to one app (the `app` column), so apps can share a database:
///
/// ```sql
/// scenestore_schema(version integer primary key)   -- one row: 1
/// scenestore_scenes(app text, scene text,
///                   document bytea not null,     -- the scene document, as a file holds it
///                   generation bigint,           -- from its header; null when unreadable
///                   incarnation text,            -- idem
///                   primary key (app, scene))
/// scenestore_tombstones(id bigserial primary key, -- the order of discards
///                       app text, scene text,
///                       incarnation text not null) -- a discarded incarnation,
///                                                  -- the scene's newest 32 kept
/// scenestore_quarantine(id bigserial primary key, app text, scene text,
///                       document bytea not null, reason text not null,
///                       at timestamptz not null default now())
/// ```
///
/// The windows' records are the app's scene `.windows`, a row like any
/// scene's. A window scene's claim is a session-level advisory lock on
/// ``PostgresNames/claimKey(app:scene:)``, held by a connection of the
/// process that has the window open: the server lets go of it when that
/// connection ends, however the process ends. Which windows are held is
/// one query of `pg_locks`.
///
/// The columns `generation` and `incarnation` only repeat the document's
/// header, so that the one-statement save can check the version it writes
/// over without reading the document; the document is the truth.
///
/// Locks are transaction-scoped advisory locks, so a scene without a row
/// can be locked too: the scene's lock is `pg_advisory_xact_lock(key)`
/// with the key of ``PostgresNames/lockKey(app:scene:)``; the schema's own
/// creation takes ``PostgresNames/schemaLockKey``. Changes are announced
/// with `pg_notify(channel, scene)` on the app's channel
/// (``PostgresNames/channel(app:)``), delivered when the change commits.
///
/// The schema is created on first use, inside a transaction holding the
/// schema lock, so processes starting together do not race (concurrent
/// `CREATE TABLE IF NOT EXISTS` can fail on the catalog's unique index).
/// A database whose schema version is newer than ``version`` is refused
/// rather than written in a shape this code does not know.
enum PostgresSchema {
    /// The version this code writes and reads.
    static let version: Int32 = 1

    static let statements: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS scenestore_schema (version integer PRIMARY KEY)
        """,
        """
        CREATE TABLE IF NOT EXISTS scenestore_scenes (
            app text NOT NULL, scene text NOT NULL, document bytea NOT NULL,
            generation bigint, incarnation text,
            PRIMARY KEY (app, scene))
        """,
        """
        CREATE TABLE IF NOT EXISTS scenestore_tombstones (
            id bigserial PRIMARY KEY, app text NOT NULL, scene text NOT NULL, incarnation text NOT NULL)
        """,
        """
        CREATE INDEX IF NOT EXISTS scenestore_tombstones_scene ON scenestore_tombstones (app, scene)
        """,
        """
        CREATE TABLE IF NOT EXISTS scenestore_quarantine (
            id bigserial PRIMARY KEY, app text NOT NULL, scene text NOT NULL,
            document bytea NOT NULL, reason text NOT NULL,
            at timestamptz NOT NULL DEFAULT now())
        """,
    ]

    /// Creates the tables where missing and checks the version, on
    /// `session` (outside any transaction).
    /// - Parameter lockWait: how long the schema lock may be waited for
    ///   (processes starting together take turns), when longer than a
    ///   statement's timeout.
    /// - Throws: ``SceneStoreError/storageUnavailable(location:reason:)``
    ///   when the server fails, or when the schema is newer than this code.
    static func prepare(on session: PostgresSession, lockWait: Duration?) async throws(SceneStoreError) {
        try await session.query("BEGIN")
        do throws(SceneStoreError) {
            try await session.query("SELECT pg_advisory_xact_lock(\(PostgresNames.schemaLockKey))", timeout: lockWait)
            for statement in statements { try await session.query(statement) }
            try await session.query(
                "INSERT INTO scenestore_schema (version) SELECT \(version) WHERE NOT EXISTS (SELECT 1 FROM scenestore_schema)"
            )
            let found = try await session.rows("SELECT max(version) FROM scenestore_schema", as: (Int32?.self)).first ?? nil
            try await session.commit()
            if let found, found > version {
                throw SceneStoreError.storageUnavailable(
                    location: session.location,
                    reason: "its SceneStore schema has version \(found), newer than this SceneStore's (\(version)); left untouched"
                )
            }
        } catch {
            await session.rollback()
            throw error
        }
    }
}
#endif
