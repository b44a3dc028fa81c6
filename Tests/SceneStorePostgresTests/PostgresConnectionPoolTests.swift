#if Postgres
import Foundation
import Logging
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// The pool opens at most `maxOpen` connections; callers beyond wait for
/// one to come back, at most the timeout.
@Suite(.requiresPostgres, .postgresServer, .timeLimit(.minutes(2)))
struct PostgresConnectionPoolTests {
    private func pool(maxOpen: Int, timeout: Duration) async throws -> PostgresConnectionPool {
        let location = try PostgresLocation(try await PostgresServer.current().newDatabase())
        return PostgresConnectionPool(location: location, timeout: timeout, logger: Logger(label: "pool-tests"), maxOpen: maxOpen)
    }

    @Test func aBurstOfCallersNeverOpensMoreThanTheCap() async throws {
        let pool = try await pool(maxOpen: 3, timeout: .seconds(60))
        defer { pool.close() }
        let lent = Locked((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await pool.withSession { (session) async throws(SceneStoreError) in
                        lent.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        _ = try await session.query("SELECT pg_sleep(0.01)")
                        lent.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Unbounded, 40 callers at once had as many connections lent.
        #expect(lent.withLock { $0.most } <= 3)
    }

    @Test func aWaiterGetsTheConnectionThatComesBack() async throws {
        let pool = try await pool(maxOpen: 1, timeout: .seconds(60))
        defer { pool.close() }
        let (held, _) = try await pool.checkout()
        let waiter = Task { try await pool.checkout() }
        try await Task.sleep(for: .milliseconds(100))
        pool.checkin(held, healthy: true)
        let (next, reused) = try await waiter.value
        #expect(next === held)
        #expect(reused)
        pool.checkin(next, healthy: true)
    }

    @Test func aCallerThatFindsEveryConnectionInUseGivesUpAfterTheTimeout() async throws {
        // Also the connect's bound: long enough for a connect on a loaded machine.
        let pool = try await pool(maxOpen: 1, timeout: .seconds(5))
        defer { pool.close() }
        let (held, _) = try await pool.checkout()
        do {
            _ = try await pool.checkout()
            Issue.record("a second connection was lent beyond the cap")
        } catch {
            guard case .storageUnavailable(_, let reason) = error else {
                Issue.record("expected storageUnavailable, got \(error)")
                return
            }
            #expect(reason.contains("stayed in use"))
        }
        pool.checkin(held, healthy: false)
        // The room of the connection that closed goes to the next caller.
        let (fresh, reused) = try await pool.checkout()
        #expect(!reused)
        pool.checkin(fresh, healthy: true)
    }
}
#endif
