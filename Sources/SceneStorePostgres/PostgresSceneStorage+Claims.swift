#if Postgres
import Foundation
import PostgresNIO
import SceneStore

/// The database's claims on windows: a claim is a session-level advisory
/// lock held by a connection of its own, which the server drops when that
/// connection ends; which windows are held is one query of `pg_locks`.
/// The windows' records are a scene of the app (``WindowRecords``).
extension PostgresSceneStorage: WindowClaims {
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

    package func claimStates(_ ids: [SceneID]) async throws(SceneStoreError) -> [SceneID: ClaimState] {
        let rows = try await pool.withSession { session async throws(SceneStoreError) in
            try await session.rows(
                """
                SELECT classid::text::bigint, objid::text::bigint FROM pg_locks
                WHERE locktype = 'advisory' AND granted AND objsubid = 1
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """,
                as: (Int64, Int64).self
            )
        }
        // An advisory lock on one bigint key is shown as its high and low
        // 32 bits (objsubid 1).
        let held = Set(rows.map { Int64(bitPattern: UInt64(truncatingIfNeeded: $0.0) << 32 | UInt64(truncatingIfNeeded: $0.1)) })
        return Dictionary(ids.map { id in
            (id, held.contains(PostgresNames.claimKey(app: app, scene: id)) ? ClaimState.held : .free)
        }, uniquingKeysWith: { first, _ in first })
    }

    /// A claim leaves nothing behind in the database.
    package func removeClaim(_ id: SceneID) async {}
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
