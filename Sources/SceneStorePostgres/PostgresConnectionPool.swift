#if Postgres
import Dispatch
import Logging
import NIOPosix
import SceneStore
import NIOConcurrencyHelpers

/// A few open connections to one database, each lent to one caller at a
/// time: a transaction holds its connection from `BEGIN` to `COMMIT`, so
/// the scene's lock (a transaction-scoped advisory lock) lives exactly as
/// long. The first connection also prepares the schema
/// (``PostgresSchema/prepare(on:)``).
final class PostgresConnectionPool: Sendable {
    let location: PostgresLocation
    /// How long a connect or a query may take before the server is taken
    /// for unreachable.
    let timeout: Duration
    let logger: Logger
    /// Connections kept open between calls; more are opened when needed
    /// and closed when returned.
    let maxIdle: Int

    private struct State {
        var idle: [PostgresSession] = []
        var schemaReady = false
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    init(location: PostgresLocation, timeout: Duration, logger: Logger, maxIdle: Int = 2) {
        self.location = location
        self.timeout = timeout
        self.logger = logger
        self.maxIdle = maxIdle
    }

    deinit {
        close()
    }

    /// A connection: an idle one (`reused`), or a new one.
    func checkout(fresh: Bool = false) async throws(SceneStoreError) -> (session: PostgresSession, reused: Bool) {
        let (idle, schemaReady, closed) = state.withLockedValue { state in
            (fresh ? nil : state.idle.popLast(), state.schemaReady, state.closed)
        }
        if closed {
            throw .storageUnavailable(location: location.description, reason: "the storage was closed")
        }
        if let idle, !idle.isClosed { return (idle, true) }
        let session = try await PostgresSession.connect(to: location, timeout: timeout, logger: logger)
        if !schemaReady {
            do {
                try await PostgresSchema.prepare(on: session)
            } catch {
                session.close()
                throw error
            }
            state.withLockedValue { $0.schemaReady = true }
        }
        return (session, false)
    }

    /// Gives `session` back: kept for the next caller when `healthy` (no
    /// transaction open, nothing failed) and there is room, else closed.
    func checkin(_ session: PostgresSession, healthy: Bool) {
        let kept = state.withLockedValue { state in
            guard healthy, !state.closed, !session.isClosed, state.idle.count < maxIdle else { return false }
            state.idle.append(session)
            return true
        }
        if !kept { session.close() }
    }

    /// Runs `body` on a connection. A connection kept from before may
    /// have died meanwhile (a server restart): when `body` fails on one
    /// because it was closed, it runs once more on a new connection, so
    /// `body` must be safe to repeat (a read).
    func withSession<Result>(
        _ body: (PostgresSession) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        let (session, reused) = try await checkout()
        do {
            return try await lend(session, to: body)
        } catch {
            guard reused, session.lostConnection else { throw error }
            logger.debug("a kept connection had closed; retrying on a new one", metadata: ["error": "\(error)"])
        }
        return try await lend(try await checkout(fresh: true).session, to: body)
    }

    /// Runs `body` on `session`, then takes the session back: kept when
    /// `body` returned, closed when it threw.
    private func lend<Result>(
        _ session: PostgresSession, to body: (PostgresSession) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        do {
            let result = try await body(session)
            checkin(session, healthy: true)
            return result
        } catch {
            checkin(session, healthy: false)
            throw error
        }
    }

    /// Closes the idle connections, waiting for them to close (at most
    /// 2 s, and not at all on an event loop); later calls throw.
    func close() {
        let idle = state.withLockedValue { state in
            state.closed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        let done = DispatchGroup()
        for session in idle {
            done.enter()
            session.closed.whenComplete { _ in done.leave() }
            session.close()
        }
        if MultiThreadedEventLoopGroup.currentEventLoop == nil { _ = done.wait(timeout: .now() + .seconds(2)) }
    }
}
#endif
