#if Postgres
import Foundation
import Logging
import PostgresNIO
import SceneStore

/// Scenes kept in a PostgreSQL database instead of a directory: processes
/// on any number of hosts that open the same database and app id share
/// their scenes, as processes sharing a file root do.
///
/// Each scene is one row holding its scene document (the bytes a scene
/// file holds); tombstones and quarantined documents are rows too. The
/// tables are described in ``PostgresSchema``, created on first use.
///
/// * A transaction (``transaction(_:_:)``) holds one connection from
///   `BEGIN` to `COMMIT` and the scene's transaction-scoped advisory lock,
///   waited for at most ``lockTimeout``; it announces a change with
///   `pg_notify` on the app's channel, delivered only once it commits.
///   When it returns, the server has committed what its body wrote.
/// * Reads outside a transaction are plain `SELECT`s: one committed
///   document, never a mix.
/// * ``watch(_:logger:handler:)`` listens on the app's channel on a
///   connection of its own, reconnecting when it drops.
///
/// Every call suspends while the server answers (no thread waits) and is
/// bounded: a server that does not answer within ``requestTimeout`` (or a
/// refused connection, at once) gives
/// ``SceneStoreError/storageUnavailable(location:reason:)``, never a hang.
package final class PostgresSceneStorage: SceneStorage {
    /// The database URL without its password.
    package let location: String
    /// Whose scenes these are: rows and the notification channel are per app.
    package let app: String
    /// How long a transaction waits for another holder of the scene's lock.
    package let lockTimeout: Duration
    /// How long one connect or statement may take.
    package let requestTimeout: Duration

    let pool: PostgresPool
    let logger: Logger
    let database: PostgresLocation
    /// The app's `LISTEN`/`NOTIFY` channel.
    let channel: String
    /// The event loop of every connection of this storage (its pool's, its
    /// claims', its `LISTEN`), where its stores run their work too.
    var eventLoop: any EventLoop { pool.eventLoop }
    package let workExecutor: (any TaskExecutor)?

    /// A storage for the scenes of `app` in the database at `url`. Does not
    /// connect yet: the first call does, and creates the schema if needed.
    ///
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database`
    ///     (see ``PostgresLocation``).
    ///   - app: the app id: apps sharing a database see only their own scenes.
    ///   - lockTimeout: the registry's lock timeout.
    ///   - requestTimeout: the longest a connect or statement may take.
    ///   - logger: where connection trouble and reconnections are logged.
    /// - Throws: ``SceneStoreError/invalidStorageLocation(_:reason:)`` for
    ///   a URL that cannot be used, or an empty app id.
    package init(
        url: String, app: String, lockTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "SceneStore.Postgres")
    ) throws(SceneStoreError) {
        let database = try PostgresLocation(url)
        guard !app.isEmpty, !app.utf8.contains(0) else {
            throw .invalidStorageLocation(database.description, reason: "the app id must be non-empty, without NUL")
        }
        var logger = logger
        logger[metadataKey: "storage"] = "\(database.description)"
        logger[metadataKey: "app"] = "\(app)"
        self.database = database
        self.location = database.description
        self.app = app
        self.lockTimeout = lockTimeout
        self.requestTimeout = requestTimeout
        self.logger = logger
        self.channel = PostgresNames.channel(app: app)
        let eventLoop = PostgresConnection.defaultEventLoopGroup.next()
        self.workExecutor = EventLoopTaskExecutor(eventLoop)
        self.pool = PostgresPool(
            location: database, eventLoop: eventLoop, timeout: requestTimeout, lockTimeout: lockTimeout, logger: logger)
    }

    /// Closes the connections (those lent close when given back); later
    /// calls throw ``SceneStoreError/storageUnavailable(location:reason:)``.
    /// Running watches are not affected (cancel them).
    package func release() {
        pool.close()
    }

    package func read(_ id: SceneID, after cursor: LogPosition?) async throws(SceneStoreError) -> StoredDocument {
        try await pool.withSession { session async throws(SceneStoreError) in
            try await read(id, after: cursor, on: session)
        }
    }

    package func sceneIDs() async throws(SceneStoreError) -> [SceneID] {
        let names = try await pool.withSession { session async throws(SceneStoreError) in
            try await session.rows("SELECT scene FROM scenestore_scenes WHERE app = \(app)", as: String.self)
        }
        return names.compactMap { name in
            // A row whose name is no scene id was not written by SceneStore.
            guard let id = try? SceneID(name) else {
                logger.warning("ignoring a row whose scene is not a valid id", metadata: ["scene": "\(name)"])
                return nil
            }
            return id
        }.sorted()
    }

    /// The scene's document as `session` sees it (inside a transaction or
    /// not), or, when it still goes on from `cursor` (its head is the one
    /// read then: no whole write since, and it reaches as far), the bytes
    /// after it: one statement fetches the head and the tail, not the
    /// scene.
    /// - Parameter locking: lock the row until the transaction ends
    ///   (`FOR UPDATE`), so that no one-statement save
    ///   (``commit(_:_:over:using:)``) lands before its write.
    func read(
        _ id: SceneID, after cursor: LogPosition?, on session: PostgresSession, locking: Bool = false
    ) async throws(SceneStoreError) -> StoredDocument {
        let lock = locking ? " FOR UPDATE" : ""
        if let cursor, let headCount = Int32(exactly: cursor.headCount), let from = Int32(exactly: cursor.offset + 1) {
            let rows = try await session.rows(
                """
                SELECT substring(document from 1 for \(headCount)), substring(document from \(from)), octet_length(document)
                FROM scenestore_scenes WHERE app = \(app) AND scene = \(id.rawValue)\(unescaped: lock)
                """,
                as: (Data, Data, Int32).self)
            guard let (head, tail, size) = rows.first else { return .missing }
            if let tooLarge = StoredDocument.tooLarge(size: Int(size)) { return tooLarge }
            if cursor.isHead(head), Int(size) >= cursor.offset { return .continued(tail) }
        }
        let rows = try await session.rows(
            """
            SELECT octet_length(document), CASE WHEN octet_length(document) <= \(Int32(clamping: SceneRegistry.Limits.largest.maxDocumentBytes)) THEN document END
            FROM scenestore_scenes WHERE app = \(app) AND scene = \(id.rawValue)\(unescaped: lock)
            """,
            as: (Int32, Data?).self)
        guard let (size, document) = rows.first else { return .missing }
        return StoredDocument.tooLarge(size: Int(size)) ?? document.map(StoredDocument.bytes) ?? .missing
    }
}
#endif
