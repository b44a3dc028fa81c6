#if Postgres
import NIOConcurrencyHelpers
import PostgresNIO
import SceneStore

/// A connection lent by a ``PostgresPool``, until ``release(healthy:)``.
final class PostgresLease: Sendable {
    let session: PostgresSession
    /// Whether the connection was lent before (it may have died since).
    let reused: Bool
    private let pool: PostgresPool
    private let released = NIOLockedValueBox(false)

    init(session: PostgresSession, reused: Bool, pool: PostgresPool) {
        self.session = session
        self.reused = reused
        self.pool = pool
    }

    /// Gives the connection back (once; later calls do nothing): lent
    /// again when `healthy` (no transaction open, nothing failed), else
    /// closed.
    func release(healthy: Bool) {
        let first = released.withLockedValue { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        if !healthy { session.close() }
        pool.giveBack(healthy ? session : nil)
    }
}
#endif
