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
        let lent = Locked((now: 0, most: 0, backends: Set<Int32>()))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await pool.withSession { (session) async throws(SceneStoreError) in
                        lent.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        let pids: [Int32] = try await session.rows("SELECT pg_backend_pid()", as: Int32.self)
                        let backend = pids.first ?? 0
                        _ = try await session.query("SELECT pg_sleep(0.01)")
                        lent.withLock { $0.now -= 1; $0.backends.insert(backend) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (most, backends) = lent.withLock { ($0.most, $0.backends) }
        #expect(most <= 3)
        #expect(backends.count <= 3, "server backends used: \(backends.count)")
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
        let pool = try await pool(maxOpen: 1, timeout: .milliseconds(300))
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
