#if Postgres
import Foundation
import Logging
import PostgresNIO
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// The pool opens at most `maxConnections` connections; callers beyond
/// wait for one to come back, at most the timeout, and are told why they
/// got none.
// Hang guard: its slowest test took 10 s here (2 cores); 3 minutes, as TSan runs it several times slower.
@Suite(.requiresPostgres, .postgresServer, .timeLimit(.minutes(3)))
struct PostgresPoolTests {
    /// A pool that has prepared its schema (its first lease does).
    private func pool(maxConnections: Int, timeout: Duration) async throws -> PostgresPool {
        let location = try PostgresLocation(try await PostgresServer.current().newDatabase())
        let pool = PostgresPool(location: location, timeout: timeout, logger: Logger(label: "pool-tests"), maxConnections: maxConnections)
        try await pool.lease().release(healthy: true)
        return pool
    }

    @Test func aBurstOfCallersNeverOpensMoreThanTheCap() async throws {
        let pool = try await pool(maxConnections: 3, timeout: .seconds(60))
        defer { pool.close() }
        let lent = Locked((now: 0, most: 0))
        let backends = Locked(Set<Int32>())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await pool.withSession { (session) async throws(SceneStoreError) in
                        lent.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        let pid = try await session.rows("SELECT pg_backend_pid() FROM pg_sleep(0.01)", as: Int32.self)
                        backends.withLock { $0.formUnion(pid) }
                        lent.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Unbounded, 40 callers at once had as many connections lent.
        #expect(lent.withLock { $0.most } <= 3)
        // Connections are kept and lent again, not opened per caller.
        #expect(backends.withLock { $0.count } <= 3)
    }

    /// Healthy, the connection itself goes to the waiter; unhealthy (closed),
    /// its place does, and the waiter connects. (postgres-nio's client, under
    /// the pool before, was seen to leave such a waiter waiting out its
    /// timeout: no connection was open, and none was being opened.)
    @Test(arguments: [true, false]) func aWaiterGetsWhatComesBack(healthy: Bool) async throws {
        let pool = try await pool(maxConnections: 1, timeout: .seconds(60))
        defer { pool.close() }
        let held = try await pool.lease()
        let waiter = Task { try await pool.lease() }
        // Released once the waiter waits (a list the pool keeps, polled:
        // it sends no event).
        while pool.state.withLockedValue({ $0.waiters.isEmpty }) {
            try await Task.sleep(for: .milliseconds(1))
        }
        held.release(healthy: healthy)
        let next = try await waiter.value
        #expect((next.session.connection.id == held.session.connection.id) == healthy)
        #expect(next.reused == healthy)
        next.release(healthy: true)
    }

    @Test func aCallerThatFindsEveryConnectionInUseGivesUpAfterTheTimeout() async throws {
        // Also the connect's bound: long enough for a connect on a loaded machine.
        let pool = try await pool(maxConnections: 1, timeout: .seconds(5))
        defer { pool.close() }
        let held = try await pool.lease()
        do {
            _ = try await pool.lease()
            Issue.record("a second connection was lent beyond the cap")
        } catch {
            guard case .storageUnavailable(_, let reason) = error else {
                Issue.record("expected storageUnavailable, got \(error)")
                return
            }
            #expect(reason.contains("stayed in use"), "\(reason)")
        }
        held.release(healthy: true)
    }

    @Test func aConnectionGivenBackUnhealthyIsClosedAndCallsGoOnOnAnother() async throws {
        let pool = try await pool(maxConnections: 1, timeout: .seconds(60))
        defer { pool.close() }
        let backend = "SELECT pg_backend_pid()" as PostgresQuery
        for _ in 0..<20 {
            let held = try await pool.lease()
            let closedBackend = try await held.session.rows(backend, as: Int32.self)
            held.release(healthy: false)
            try await held.session.connection.closeFuture.get()
            let next = try await pool.withSession { (session) async throws(SceneStoreError) in
                try await session.rows(backend, as: Int32.self)
            }
            #expect(next != closedBackend)
        }
    }

    @Test func aRefusedConnectFailsTheCallerAtOnceWithItsReason() async throws {
        // postgres-nio's client retried with backoff until the caller's
        // timeout; the pool's connect tells at once.
        let port = try PostgresServer.freePort()
        let location = try PostgresLocation("postgres://u:p@127.0.0.1:\(port)/db?sslmode=disable")
        let pool = PostgresPool(location: location, timeout: .seconds(60), logger: Logger(label: "pool-tests"))
        defer { pool.close() }
        do {
            _ = try await pool.lease()
            Issue.record("a connection was lent with no server")
        } catch {
            guard case .storageUnavailable(_, let reason) = error else {
                Issue.record("expected storageUnavailable, got \(error)")
                return
            }
            #expect(!reason.contains("within"), "the caller waited out its timeout: \(reason)")
            #expect(reason.lowercased().contains("refused"), "\(reason)")
        }
    }

    @Test func aClosedPoolLendsNothing() async throws {
        let pool = try await pool(maxConnections: 2, timeout: .seconds(60))
        let lease = try await pool.lease()
        lease.release(healthy: true)
        pool.close()
        await #expect(throws: SceneStoreError.self) { try await pool.lease() }
    }

    @Test func backToBackStatementsKeepOneConnection() async throws {
        let pool = try await pool(maxConnections: 3, timeout: .seconds(60))
        defer { pool.close() }
        var backends = Set<Int32>()
        for _ in 0..<50 {
            let pid = try await pool.withSession { (session) async throws(SceneStoreError) in
                try await session.rows("SELECT pg_backend_pid()", as: Int32.self)
            }
            backends.formUnion(pid)
        }
        #expect(backends.count == 1)
    }

    @Test func aLoopOfStatementsNeverKeepsALeaseWaiting() async throws {
        // One connection, taken again and again by a loop of statements
        // that never pauses: a lease (a transaction's) gets it after the
        // statement in flight.
        // A starved lease would wait out any timeout; 30 s, not 5, because
        // under the whole suite's load one lease once took longer than 5 s.
        let pool = try await pool(maxConnections: 1, timeout: .seconds(30))
        defer { pool.close() }
        let stop = Locked(false)
        let (ran, statementRan) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let run = Locked(0)
        let statements = Task {
            defer { statementRan.finish() }
            while !stop.withLock({ $0 }) {
                _ = try await pool.withSession { (session) async throws(SceneStoreError) in try await session.query("SELECT 1") }
                statementRan.yield(run.withLock { $0 += 1; return $0 })
            }
        }
        var statementsRun = ran.makeAsyncIterator()
        var released = 0
        for _ in 0..<10 {
            // The loop keeps the connection again: one of its statements
            // ended after the last lease was released.
            while let count = await statementsRun.next(), count <= released {}
            let lease = try await pool.lease()
            _ = try await lease.session.query("SELECT 1")
            lease.release(healthy: true)
            released = run.withLock { $0 }
        }
        stop.withLock { $0 = true }
        try await statements.value
    }
}
#endif
