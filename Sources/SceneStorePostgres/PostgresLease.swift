#if Postgres
import NIOConcurrencyHelpers
import PostgresNIO
import SceneStore

/// A connection lent by a ``PostgresPool``, until ``release(healthy:)``.
final class PostgresLease: Sendable {
    let session: PostgresSession
    /// Whether the connection was lent before (it may have died since).
    let reused: Bool
    /// Completes with whether the connection can be lent again.
    let released = OneShot<Bool>()
    /// The pool a connection of its own goes back to (`nil`: the client's).
    private let directPool: PostgresPool?
    /// Whether the connection is the client's.
    var fromClient: Bool { directPool == nil }

    init(connection: PostgresConnection, reused: Bool, pool: PostgresPool) {
        self.session = PostgresSession(connection: connection, location: pool.location.description, timeout: pool.timeout, logger: pool.logger)
        self.reused = reused
        self.directPool = nil
    }

    init(direct session: PostgresSession, pool: PostgresPool) {
        self.session = session
        self.reused = false
        self.directPool = pool
    }

    /// Gives the connection back: lent again when `healthy` (no
    /// transaction open, nothing failed), else closed.
    func release(healthy: Bool) {
        let keep = healthy && directPool == nil && !session.isClosed
        // Closed before the client has it back, so it never lends it again.
        if !keep { session.close() }
        if released.fulfil(keep) { directPool?.directReleased() }
    }
}
#endif
