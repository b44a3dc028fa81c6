#if Postgres
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SceneStore

/// A storage's connections: at most ``maxConnections`` open at once, kept
/// between callers, each connected by ``PostgresSession/connect(to:on:timeout:lockTimeout:logger:)``
/// (so `verify-full` checks the host as libpq does, which postgres-nio's
/// `PostgresClient` cannot: its TLS handler takes no check of ours).
///
/// A lease (``lease()``) lends one connection to one caller: a transaction
/// holds it from `BEGIN` to `COMMIT`, so the scene's lock (a
/// transaction-scoped advisory lock) lives exactly as long. A lease takes
/// the connection given back last, else connects (a refused or failed
/// connect fails that caller at once, with its reason; the next caller
/// tries again, with no backoff: a server back from an outage serves at
/// once), else, with all ``maxConnections`` lent, waits first come first
/// served, at most ``timeout``, then fails with
/// ``SceneStoreError/storageUnavailable(location:reason:)``. A connection
/// given back unhealthy is closed, and its place goes to the first waiter,
/// who connects. Connections unused for ``idleLimit`` are closed.
///
/// No lender asks for a second connection while it holds one, so lenders
/// cannot wait for each other. The first lease also prepares the schema
/// (``PostgresSchema/prepare(on:lockWait:)``).
final class PostgresPool: Sendable {
    let location: PostgresLocation
    /// Where every connection of the pool lives.
    let eventLoop: any EventLoop
    /// How long a lease may wait for a connection, a connect may take, and
    /// each statement on it.
    let timeout: Duration
    /// Each connection's `lock_timeout`: how long a statement waits for a
    /// lock (the scene's advisory lock) before it fails with 55P03.
    let lockTimeout: Duration?
    let logger: Logger
    /// Connections open at once, lent or idle.
    let maxConnections: Int
    /// How long a connection given back stays open unused.
    static let idleLimit: Duration = .seconds(30)

    struct State {
        var closed = false
        var schemaReady = false
        /// Connections open or connecting, lent or idle.
        var open = 0
        /// Connections given back, the last one last.
        var idle: [(session: PostgresSession, since: ContinuousClock.Instant)] = []
        /// Callers waiting for a connection, first come first.
        var waiters: [(id: Int, grant: OneShot<Grant>)] = []
        var nextWaiter = 0
        var idleCheck: Scheduled<Void>?
    }

    /// What a waiting caller is given.
    enum Grant: Sendable {
        /// A connection given back.
        case connection(PostgresSession)
        /// The place of a connection closed: the caller connects.
        case place
        case timedOut
        case closed
    }

    let state = NIOLockedValueBox(State())

    /// - Parameter eventLoop: where every connection of the pool lives.
    init(
        location: PostgresLocation, eventLoop: any EventLoop = PostgresConnection.defaultEventLoopGroup.next(),
        timeout: Duration, lockTimeout: Duration? = nil, logger: Logger, maxConnections: Int = 10
    ) {
        self.location = location
        self.eventLoop = eventLoop
        self.timeout = timeout
        self.lockTimeout = lockTimeout
        self.logger = logger
        self.maxConnections = max(maxConnections, 1)
    }

    deinit {
        close()
    }

    /// A connection, lent until ``PostgresLease/release(healthy:)``,
    /// waiting at most ``timeout`` for it.
    func lease() async throws(SceneStoreError) -> PostgresLease {
        let lease = try await obtain()
        if !state.withLockedValue({ $0.schemaReady }) { try await prepareSchema(on: lease) }
        return lease
    }

    private func obtain() async throws(SceneStoreError) -> PostgresLease {
        enum Next { case reuse(PostgresSession), connect, wait(Int, OneShot<Grant>), closed }
        let next = state.withLockedValue { state -> Next in
            guard !state.closed else { return .closed }
            while let kept = state.idle.popLast() {
                if !kept.session.isClosed { return .reuse(kept.session) }
                state.open -= 1
            }
            if state.open < maxConnections {
                state.open += 1
                return .connect
            }
            let grant = OneShot<Grant>()
            state.nextWaiter += 1
            state.waiters.append((state.nextWaiter, grant))
            return .wait(state.nextWaiter, grant)
        }
        switch next {
        case .reuse(let session):
            return PostgresLease(session: session, reused: true, pool: self)
        case .connect:
            return try await connect()
        case .closed:
            throw closedError
        case .wait(let id, let grant):
            // On an event loop, not a task: cancelling it wakes no thread.
            let timer = eventLoop.scheduleTask(in: TimeAmount(timeout)) {
                if grant.fulfil(.timedOut) { self.state.withLockedValue { $0.waiters.removeAll { $0.id == id } } }
            }
            let granted = await grant.value
            timer.cancel()
            switch granted {
            case .connection(let session):
                return PostgresLease(session: session, reused: true, pool: self)
            case .place:
                return try await connect()
            case .closed:
                throw closedError
            case .timedOut:
                throw .storageUnavailable(
                    location: location.description,
                    reason: "all \(maxConnections) connections of this storage stayed in use for \(timeout)")
            }
        }
    }

    /// Opens a connection in a place the caller holds.
    private func connect() async throws(SceneStoreError) -> PostgresLease {
        do {
            let session = try await PostgresSession.connect(
                to: location, on: eventLoop, timeout: timeout, lockTimeout: lockTimeout, logger: logger)
            return PostgresLease(session: session, reused: false, pool: self)
        } catch {
            giveBack(nil)
            throw error
        }
    }

    /// Takes back a lent connection (`nil`: one closed, or never opened):
    /// to the first waiter, else kept.
    func giveBack(_ session: PostgresSession?) {
        let session = session.flatMap { $0.isClosed ? nil : $0 }
        enum Next { case handTo(OneShot<Grant>), kept, closing }
        while true {
            let next = state.withLockedValue { state -> Next in
                if state.closed {
                    state.open -= 1
                    return .closing
                }
                if !state.waiters.isEmpty { return .handTo(state.waiters.removeFirst().grant) }
                if let session {
                    state.idle.append((session, .now))
                    if state.idleCheck == nil { state.idleCheck = scheduleIdleCheck() }
                } else {
                    state.open -= 1
                }
                return .kept
            }
            switch next {
            case .kept:
                return
            case .closing:
                session?.close()
                return
            case .handTo(let waiter):
                if waiter.fulfil(session.map(Grant.connection) ?? .place) { return }
                // That caller gave up meanwhile: the next one.
            }
        }
    }

    /// Closes, every ``idleLimit``, the connections unused that long.
    private func scheduleIdleCheck() -> Scheduled<Void> {
        eventLoop.scheduleTask(in: TimeAmount(Self.idleLimit)) {
            let stale = self.state.withLockedValue { state -> [PostgresSession] in
                let now = ContinuousClock.now
                let stale = state.idle.filter { now - $0.since >= Self.idleLimit }.map(\.session)
                state.idle.removeAll { now - $0.since >= Self.idleLimit }
                state.open -= stale.count
                state.idleCheck = state.idle.isEmpty || state.closed ? nil : self.scheduleIdleCheck()
                return stale
            }
            for session in stale { session.close() }
        }
    }

    private var closedError: SceneStoreError {
        .storageUnavailable(location: location.description, reason: "the storage was closed")
    }

    private func prepareSchema(on lease: PostgresLease) async throws(SceneStoreError) {
        do {
            try await PostgresSchema.prepare(on: lease.session, lockWait: lockTimeout.map { $0 + timeout })
        } catch {
            lease.release(healthy: false)
            throw error
        }
        state.withLockedValue { $0.schemaReady = true }
    }

    /// A lent connection on which `BEGIN` succeeded, tried again on the
    /// next connection as ``withSession(_:)`` does.
    func beginTransaction() async throws(SceneStoreError) -> PostgresLease {
        try await retrying { lease async throws(SceneStoreError) in
            do throws(SceneStoreError) {
                try await lease.session.query("BEGIN")
                return lease
            } catch {
                lease.release(healthy: false)
                throw error
            }
        }
    }

    /// Runs `body`, autocommitted statements (no transaction), on a lent
    /// connection. A connection kept from before may have died meanwhile
    /// (a server restart): when `body` fails on one because it was closed,
    /// it runs again on the next connection, so `body` must be safe to
    /// repeat (a read, a conditional write).
    func withSession<Result>(
        _ body: (PostgresSession) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        try await retrying { lease async throws(SceneStoreError) in
            do throws(SceneStoreError) {
                let result = try await body(lease.session)
                lease.release(healthy: true)
                return result
            } catch {
                lease.release(healthy: false)
                throw error
            }
        }
    }

    /// Runs `attempt` on a lent connection (it releases the lease, or
    /// returns it); when it fails because a connection kept from before
    /// was found closed, on the next one, as many times as the pool may
    /// hold such connections.
    func retrying<Result>(
        _ attempt: (PostgresLease) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        var attempts = 0
        while true {
            let lease = try await lease()
            do {
                return try await attempt(lease)
            } catch {
                attempts += 1
                guard lease.reused, lease.session.lostConnection, attempts <= maxConnections else { throw error }
                logger.debug("a kept connection had closed; retrying on another", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Closes the connections kept; those lent close when given back, and
    /// later leases throw. Does not wait.
    func close() {
        let (idle, waiters) = state.withLockedValue { state in
            state.closed = true
            state.idleCheck?.cancel()
            state.idleCheck = nil
            state.open -= state.idle.count
            defer { state.idle = []; state.waiters = [] }
            return (state.idle.map(\.session), state.waiters.map(\.grant))
        }
        for session in idle { session.close() }
        for waiter in waiters { waiter.fulfil(.closed) }
    }
}
#endif
