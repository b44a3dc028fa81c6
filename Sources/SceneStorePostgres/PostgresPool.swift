#if Postgres
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SceneStore

/// A storage's connections: postgres-nio's `PostgresClient`, a bounded
/// pool that keeps idle connections alive (a `SELECT 1` after 30 s idle)
/// and closes those unused for a minute, run by a task of its own from the
/// first lease until ``close()``.
///
/// A lease (``lease()``) lends one connection to one caller: a transaction
/// holds it from `BEGIN` to `COMMIT`, so the scene's lock (a
/// transaction-scoped advisory lock) lives exactly as long. At most
/// ``maxConnections`` are open at once; a caller that finds them all lent
/// waits, first come first served, at most ``timeout`` in all (the
/// client's queue has no bound of its own), then fails with
/// ``SceneStoreError/storageUnavailable(location:reason:)``, saying whether
/// the server could be reached.
///
/// The client connects only when asked, and after a failed connect
/// retries with a backoff that grows to a minute, telling its callers
/// nothing meanwhile. So while it holds no connection (first use, after
/// an outage) it is asked for one in the background, and each caller
/// connects on its own, as many at once as the client's bound: a refused
/// or failed connect fails the caller at once with its reason, and a
/// server back from an outage serves at once, whatever the client's
/// backoff. Such a connection is closed on release. Callers use the client
/// again as soon as it lends a connection.
///
/// Statements outside a transaction (``withSession(_:)``: a save over
/// the version a store holds, a read) keep the connection they were lent
/// between calls while nobody waits for one (see ``lineIdle``).
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
    /// Connections open at once, lent or idle, in the client.
    let maxConnections: Int
    private let client: PostgresClient

    /// Guarded by ``state``; the kept connection's part is handled in
    /// `PostgresPool+Line.swift`.
    struct State {
        /// The client's `run()`, from the first lease on.
        var running: Task<Void, Never>?
        var closed = false
        var schemaReady = false
        /// The client's connections lent before and not closed since: a
        /// lease of one of them is a reuse. (A closed one is forgotten: the
        /// client never gives its id to another.)
        var live: Set<PostgresConnection.ID> = []
        /// Connections of the pool's own lent now.
        var directLent = 0
        /// Whether a request of ``warmClient()`` is out.
        var warming = false
        /// A lease of the client's kept between calls of
        /// ``withSession(_:)`` (see ``lineIdle``).
        var line: PostgresLease?
        var lineBusy = false
        var lineUsed = ContinuousClock.now
        /// Gives the line back once it is unused for ``lineIdle``.
        var lineTimer: Scheduled<Void>?
        /// Callers waiting for a lease of the client's: the line goes back
        /// to the client rather than keep a connection from them.
        var waiting = 0
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
        // The client logs each failed connect of its backoff at info (an
        // outage would fill the app's log), and warns of a lease asked for
        // before its run() task got going (as the first may be: it waits
        // for it). Failures reach the caller, who logs them; its errors pass.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        self.client = PostgresClient(
            configuration: location.clientConfiguration(
                defaultConnectTimeout: timeout, lockTimeout: lockTimeout, maxConnections: self.maxConnections),
            eventLoopGroup: eventLoop,
            backgroundLogger: background
        )
    }

    deinit {
        close()
    }

    /// A connection, lent until ``PostgresLease/release(healthy:)``,
    /// waiting at most ``timeout`` for it: the client's, or while the
    /// client holds none, one of the pool's own.
    func lease() async throws(SceneStoreError) -> PostgresLease {
        try run()
        let lease = try await clientHoldsConnections() ? clientLease() : directLease()
        if !state.withLockedValue({ $0.schemaReady }) { try await prepareSchema(on: lease) }
        return lease
    }

    /// Whether the caller should wait for the client. While it holds no
    /// connection, it is asked for one in the background (one request at a
    /// time), and the caller connects on its own, unless
    /// ``maxConnections`` of the pool's own connections are lent already.
    private func clientHoldsConnections() -> Bool {
        let (useClient, warm) = state.withLockedValue { state -> (Bool, Bool) in
            guard state.live.isEmpty else { return (true, false) }
            let warm = !state.warming
            state.warming = true
            guard state.directLent < maxConnections else { return (true, warm) }
            state.directLent += 1
            return (false, warm)
        }
        if warm { warmClient() }
        return useClient
    }

    /// A connection of the pool's own, closed on release: a refused or
    /// failed connect fails the caller at once, with its reason.
    private func directLease() async throws(SceneStoreError) -> PostgresLease {
        do {
            let session = try await PostgresSession.connect(
                to: location, on: eventLoop, timeout: timeout, lockTimeout: lockTimeout, logger: logger)
            return PostgresLease(direct: session, pool: self)
        } catch {
            directReleased()
            throw error
        }
    }

    /// A connection of the pool's own was closed.
    func directReleased() {
        state.withLockedValue { $0.directLent -= 1 }
    }

    /// Asks the client for a connection and gives it straight back, so
    /// that it connects; the connection it lends is known from then on.
    private func warmClient() {
        Task { [client] in
            _ = try? await client.withConnection { connection in self.known(connection) }
            state.withLockedValue { $0.warming = false }
        }
    }

    /// Records a connection of the client's: whether it was lent before.
    private func known(_ connection: PostgresConnection) -> Bool {
        let id = connection.id
        let reused = state.withLockedValue { !$0.live.insert(id).inserted }
        if !reused {
            connection.closeFuture.whenComplete { _ in _ = self.state.withLockedValue { $0.live.remove(id) } }
        }
        return reused
    }

    /// A connection of the client's, waiting at most ``timeout``.
    private func clientLease() async throws(SceneStoreError) -> PostgresLease {
        let freeLine = state.withLockedValue { state -> PostgresLease? in
            state.waiting += 1
            guard let line = state.line, !state.lineBusy else { return nil }
            state.line = nil
            return line
        }
        freeLine?.release(healthy: true)
        defer { state.withLockedValue { $0.waiting -= 1 } }
        let granted = OneShot<Grant>()
        // The client lends a connection for a closure's lifetime: this task
        // holds the closure open until the lease is released.
        let holder = Task { [client] in
            do {
                try await client.withConnection { connection in
                    let lease = PostgresLease(connection: connection, reused: self.known(connection), pool: self)
                    guard granted.fulfil(.lent(lease)) else { return }  // the caller gave up meanwhile
                    if await !lease.released.value { try? await connection.close().get() }
                }
            } catch {
                granted.fulfil(.failed(error))
            }
        }
        // On an event loop, not a task: cancelling it wakes no thread.
        let timer = eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            if granted.fulfil(.timedOut) { holder.cancel() }
        }
        let grant = await granted.value
        timer.cancel()
        switch grant {
        case .lent(let lease):
            return lease
        case .failed(let error):
            if state.withLockedValue({ $0.closed }) {
                throw .storageUnavailable(location: location.description, reason: "the storage was closed")
            }
            throw .storageUnavailable(location: location.description, reason: PostgresSession.describe(error))
        case .timedOut:
            throw .storageUnavailable(location: location.description, reason: await whyNoConnection())
        }
    }

    /// Starts the client's `run()` on the first lease.
    private func run() throws(SceneStoreError) {
        let closed = state.withLockedValue { state -> Bool in
            guard !state.closed else { return true }
            if state.running == nil {
                state.running = Task { [client] in await client.run() }
            }
            return false
        }
        if closed { throw .storageUnavailable(location: location.description, reason: "the storage was closed") }
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

    /// Why a lease found no connection within ``timeout``: the client does
    /// not say. With all ``maxConnections`` of the client's open, they
    /// stayed in use; else a connection of its own asks the server (1 s at
    /// most), whose error says why the client could not connect.
    private func whyNoConnection() async -> String {
        let inUse = "all \(maxConnections) connections of this storage stayed in use for \(timeout)"
        if state.withLockedValue({ $0.live.count >= maxConnections }) { return inUse }
        do {
            let probe = try await PostgresSession.connect(to: location, on: eventLoop, timeout: min(timeout, .seconds(1)), logger: logger)
            probe.close()
            return inUse
        } catch {
            return "no connection to the server within \(timeout): \(error.unavailableReason)"
        }
    }

    /// A lent connection on which `start` (a `BEGIN`) succeeded, tried
    /// again on the next connection as ``withSession(_:)`` does.
    func lease(startingWith start: (PostgresSession) async throws(SceneStoreError) -> Void) async throws(SceneStoreError) -> PostgresLease {
        try await retrying { lease async throws(SceneStoreError) in
            do throws(SceneStoreError) {
                try await start(lease.session)
                return lease
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

    /// Stops the client: its connections close, and later leases throw.
    /// Does not wait.
    func close() {
        let (running, line) = state.withLockedValue { state in
            state.closed = true
            state.lineTimer?.cancel()
            state.lineTimer = nil
            defer { state.line = nil }
            return (state.running, state.lineBusy ? nil : state.line)
        }
        line?.release(healthy: true)
        running?.cancel()
    }

    /// What a lease's wait ended with.
    private enum Grant: Sendable {
        case lent(PostgresLease)
        case failed(any Error)
        case timedOut
    }
}
#endif
