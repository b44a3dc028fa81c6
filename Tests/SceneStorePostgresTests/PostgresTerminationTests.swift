#if Postgres
import Foundation
import PostgresNIO
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// Backends ended by `pg_terminate_backend` while a storage works, again
/// and again: each call succeeds or fails with the lost connection, never
/// by waiting out the request timeout. The timeout is 60 s here, so a call
/// that waited for it would say "no answer within 60 seconds" (a query sent
/// as the server ended the connection used to go unanswered).
// Hang guard: its slowest test took 26 s in its layer here, 155 s in the whole suite (every test at once on 2 cores); 4 minutes.
@Suite(.timeLimit(.minutes(4)))
struct PostgresTerminationTests {
    /// A session watches its connection's close once, not once per call:
    /// an answered call leaves nothing waiting on it. (A callback per call
    /// stayed registered until the connection closed: 194 MB after 200,000
    /// queries on one connection, measured in a debug build.)
    @Test(.requiresPostgres, .postgresServer) func answeredCallsLeaveNothingWaitingOnTheClose() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let session = try await PostgresSession.connect(to: try PostgresLocation(url), timeout: .seconds(30), logger: PostgresServer.logger)
        for _ in 0..<1000 { try await session.query("SELECT 1") }
        #expect(session.closes.count == 0)
        session.close()
    }

    @Test(.requiresPostgres) func terminatedBackendsFailCallsAtOnce() async throws {
        try await PostgresServer.with { server in
            let database = try await server.newDatabase()
            let name = try #require(database.split(separator: "/").last.map(String.init))
            let storage = try PostgresSceneStorage(testing: database, requestTimeout: .seconds(60))
            let id = SceneID("main")
            try await storage.put(TestDocuments.document("main"), as: id)

            let stop = Locked(false)
            let terminations = Locked(0)
            let terminator = Task {
                try await server.withConnection(database: name) { connection in
                    while !stop.withLock({ $0 }) {
                        _ = try await connection.query("""
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE pid <> pg_backend_pid() AND datname = current_database()
                            """, logger: PostgresServer.logger)
                        terminations.withLock { $0 += 1 }
                        try await Task.sleep(for: .milliseconds(3))
                    }
                }
            }
            let outcome = await withTaskExecutorPreference(OwnQueue()) { () async -> (Int, [String], Int) in
                var failed = 0
                var calls = 0
                var waited: [String] = []
                // At least 150 calls, and on until 100 rounds of terminations
                // have run among them (a loaded machine runs fewer per call).
                for generation in 2...5001 where calls < 150 || terminations.withLock({ $0 }) < 100 {
                    calls += 1
                    do {
                        try await storage.put(TestDocuments.document("main", generation: UInt64(generation)), as: id)
                        _ = try await storage.read(id, after: nil)
                    } catch {
                        failed += 1
                        if case .storageUnavailable(_, let reason)? = error as? SceneStoreError, reason.contains("no answer within") {
                            waited.append(reason)
                        }
                    }
                }
                return (failed, waited, calls)
            }
            stop.withLock { $0 = true }
            try await terminator.value
            let rounds = terminations.withLock { $0 }
            #expect(rounds > 0)
            #expect(outcome.1.isEmpty, "\(outcome.1.count) of \(outcome.0) failures waited: \(outcome.1.prefix(3))")
            print("terminated backends: \(rounds) rounds of pg_terminate_backend; \(outcome.0) of \(outcome.2) calls failed, \(outcome.1.count) by waiting")
        }
    }
}
#endif
