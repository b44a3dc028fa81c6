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
///
/// At most ``maxOpen`` connections are open at once, lent or idle: a
/// caller that finds them all lent waits, first come first served, for
/// one to come back, at most ``timeout``; then it fails with
/// ``SceneStoreError/storageUnavailable(location:reason:)``. (Unbounded,
/// a burst of reloads across many scenes opened a connection each until
/// the server refused clients.) No lender asks for a second connection
/// while it holds one, so lenders cannot wait for each other.
final class PostgresConnectionPool: Sendable {
    let location: PostgresLocation
    /// How long a connect or a query may take before the server is taken
    /// for unreachable.
    let timeout: Duration
    let logger: Logger
    /// Connections kept open between calls; more are opened when needed
    /// and closed when returned.
    let maxIdle: Int
    /// Connections open at once, lent or idle.
    let maxOpen: Int
    /// Each connection's `lock_timeout`: how long a statement waits for a
    /// lock (the scene's advisory lock) before it fails with 55P03.
    let lockTimeout: Duration?

    private struct State {
        var idle: [PostgresSession] = []
        /// Connections lent, idle, or being opened.
        var open = 0
        /// Callers waiting for a connection, in order.
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
        /// Counts the times room was made, so that a waiter that arrives
        /// just after one does not wait for the next.
        var roomMade: UInt64 = 0
        var schemaReady = false
        var closed = false

        /// Room for one more caller: the first waiter is woken.
        mutating func makeRoom() -> Waiter? {
            roomMade += 1
            return waiters.isEmpty ? nil : waiters.removeFirst()
        }
    }

    /// A caller waiting for room, and the timer that gives up for it.
    private struct Waiter {
        let id: UInt64
        let wake: CheckedContinuation<Bool, Never>
        var timer: Task<Void, Never>?

        /// Resumes the caller (`roomMade`: look again) and stops its timer.
        func resume(roomMade: Bool) {
            timer?.cancel()
            wake.resume(returning: roomMade)
        }
    }

    private let state = NIOLockedValueBox(State())

    init(
        location: PostgresLocation, timeout: Duration, lockTimeout: Duration? = nil, logger: Logger,
        maxIdle: Int = 2, maxOpen: Int = 10
    ) {
        self.location = location
        self.lockTimeout = lockTimeout
        self.timeout = timeout
        self.logger = logger
        self.maxIdle = maxIdle
        self.maxOpen = max(maxOpen, 1)
    }

    deinit {
        close()
    }

    /// A connection: an idle one (`reused`), or a new one (`fresh`: never
    /// an idle one), waiting at most ``timeout`` for room.
    func checkout(fresh: Bool = false) async throws(SceneStoreError) -> (session: PostgresSession, reused: Bool) {
        let deadline = ContinuousClock.now + timeout
        while true {
            enum Claim { case idle(PostgresSession), open, wait(seen: UInt64) }
            var retired: PostgresSession?
            let claim = state.withLockedValue { state -> Claim? in
                guard !state.closed else { return nil }
                if !fresh, let idle = state.idle.popLast() { return .idle(idle) }
                if fresh, state.open >= maxOpen, !state.idle.isEmpty {
                    // Its room goes to the new connection.
                    retired = state.idle.removeFirst()
                    return .open
                }
                guard state.open < maxOpen else { return .wait(seen: state.roomMade) }
                state.open += 1
                return .open
            }
            retired?.close()
            switch claim {
            case nil:
                throw .storageUnavailable(location: location.description, reason: "the storage was closed")
            case .idle(let session):
                if !session.isClosed { return (session, true) }
                release()
            case .open:
                do throws(SceneStoreError) {
                    return (try await open(), false)
                } catch {
                    release()
                    throw error
                }
            case .wait(let seen):
                guard await waitForRoom(since: seen, until: deadline) else {
                    throw .storageUnavailable(
                        location: location.description,
                        reason: "all \(maxOpen) connections of this storage stayed in use for \(timeout)")
                }
            }
        }
    }

    private func open() async throws(SceneStoreError) -> PostgresSession {
        let session = try await PostgresSession.connect(to: location, timeout: timeout, lockTimeout: lockTimeout, logger: logger)
        if !state.withLockedValue({ $0.schemaReady }) {
            do {
                try await PostgresSchema.prepare(on: session)
            } catch {
                session.close()
                throw error
            }
            state.withLockedValue { $0.schemaReady = true }
        }
        return session
    }

    /// A connection closed (or never opened): its room goes to the first waiter.
    private func release() {
        state.withLockedValue { state in
            state.open -= 1
            return state.makeRoom()
        }?.resume(roomMade: true)
    }

    /// Waits until room is made after `seen`, or `deadline` passes.
    /// - Returns: whether room was made.
    private func waitForRoom(since seen: UInt64, until deadline: ContinuousClock.Instant) async -> Bool {
        await withCheckedContinuation { (wake: CheckedContinuation<Bool, Never>) in
            let id = state.withLockedValue { state -> UInt64? in
                guard state.roomMade == seen, !state.closed else { return nil }
                state.nextWaiter += 1
                state.waiters.append(Waiter(id: state.nextWaiter, wake: wake))
                return state.nextWaiter
            }
            guard let id else {
                wake.resume(returning: true)
                return
            }
            let timer = Task {
                guard (try? await Task.sleep(until: deadline)) != nil else { return }  // woken first
                state.withLockedValue { state -> Waiter? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index)
                }?.wake.resume(returning: false)
            }
            // Kept with the waiter, so that waking it stops the timer; a
            // waiter already woken meanwhile stops it here.
            let woken = state.withLockedValue { state -> Bool in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return true }
                state.waiters[index].timer = timer
                return false
            }
            if woken { timer.cancel() }
        }
    }

    /// Gives `session` back: kept for the next caller when `healthy` (no
    /// transaction open, nothing failed) and there is room, else closed.
    func checkin(_ session: PostgresSession, healthy: Bool) {
        let (kept, wake) = state.withLockedValue { state in
            let kept = healthy && !state.closed && !session.isClosed && state.idle.count < maxIdle
            if kept {
                state.idle.append(session)
            } else {
                state.open -= 1
            }
            return (kept, state.makeRoom())
        }
        if !kept { session.close() }
        wake?.resume(roomMade: true)
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
        let (idle, waiters) = state.withLockedValue { state in
            state.closed = true
            defer {
                state.idle.removeAll()
                state.waiters.removeAll()
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters { waiter.resume(roomMade: true) }
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
