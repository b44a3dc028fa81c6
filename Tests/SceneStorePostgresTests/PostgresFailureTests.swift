#if Postgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// A server that cannot be reached gives `.storageUnavailable` within a
/// bounded time, never a hang; a URL that cannot be used is refused at
/// once.
// Hang guard: its slowest test took 22 s in its layer here, 88 s in the whole suite (every test at once on 2 cores); 3 minutes.
@Suite(.timeLimit(.minutes(3)))
struct PostgresFailureTests {
    @Test(arguments: [
        "mysql://u@localhost/db",
        "postgres://localhost/db",
        "postgres://user@/db",
        "postgres://user@localhost",
        "postgres://user@localhost/a/b",
        "postgres://user:secret@localhost:99999/db",
        "postgres://user:secret@localhost/db?sslmode=verify-full",
        "not a url at all",
    ])
    func unusableURLIsInvalidStorageLocation(url: String) {
        do {
            _ = try PostgresSceneStorage(url: url, app: "tests")
            Issue.record("\(url) was accepted")
        } catch .invalidStorageLocation(let location, _) {
            #expect(!location.contains("secret"))
        } catch {
            Issue.record("expected invalidStorageLocation, got \(error)")
        }
    }

    @Test func emptyAppIsInvalidStorageLocation() {
        #expect(throws: SceneStoreError.self) { try PostgresSceneStorage(url: "postgres://u@localhost/db", app: "") }
    }

    @Test func locationNamesTheDatabaseWithoutPassword() throws {
        let storage = try PostgresSceneStorage(url: "postgresql://ada:top%40secret@db.example:6543/scenes", app: "x")
        #expect(storage.location == "postgres://ada@db.example:6543/scenes")
        let location = try PostgresLocation("postgres://ada:top%40secret@[::1]/scenes")
        #expect(location.password == "top@secret")
        #expect(location.host == "::1")
        #expect(location.port == 5432)
    }

    @Test func closedPortIsStorageUnavailableAtOnce() async throws {
        let port = try PostgresServer.freePort()
        let storage = try PostgresSceneStorage(testing: "postgres://u:p@127.0.0.1:\(port)/db")
        // At once: the refusal itself ends each call, not a timeout waited out.
        let reasons = [
            await expectUnavailable { try await storage.read(SceneID("main"), after: nil) },
            await expectUnavailable { try await storage.put(TestDocuments.document("main"), as: SceneID("main")) },
            await expectUnavailable { try await storage.sceneIDs() },
        ]
        for reason in reasons {
            #expect(reason?.lowercased().contains("refused") == true, "\(reason ?? "no reason")")
        }
    }

    @Test(.requiresPostgres) func wrongPasswordIsStorageUnavailable() async throws {
        try await PostgresServer.with { server in
            let storage = try PostgresSceneStorage(testing: "postgres://scenestore:wrong@127.0.0.1:\(server.port)/postgres")
            let reason = await expectUnavailable { try await storage.sceneIDs() }
            #expect(reason?.contains("password") == true, "\(reason ?? "no reason")")
        }
    }

    @Test(.requiresPostgres) func stoppedServerIsStorageUnavailableWithinBoundedTime() async throws {
        try await PostgresServer.with { server in
            let storage = try PostgresSceneStorage(testing: try await server.newDatabase(), requestTimeout: .seconds(2))
            let id = SceneID("main")
            try await eventually(within: .seconds(120)) { try await storage.put(TestDocuments.document("main"), as: id) }
            try await blockingWork { try server.stop() }
            // The kept connections died with the server; new ones are refused.
            await expectUnavailable { try await storage.put(TestDocuments.document("main", generation: 2), as: id) }
            await expectUnavailable { try await storage.read(id, after: nil) }
            try await blockingWork { try server.restart() }
            await #expect(try storage.read(id, after: nil).bytes == TestDocuments.document("main"))
        }
    }

    /// A server that accepts connections but never answers (its processes
    /// stopped with SIGSTOP) costs the request timeout, not forever.
    @Test(.requiresPostgres) func serverThatDoesNotAnswerIsStorageUnavailableAfterTheTimeout() async throws {
        try await PostgresServer.with { server in
            let storage = try PostgresSceneStorage(testing: try await server.newDatabase(), requestTimeout: .seconds(1))
            let id = SceneID("main")
            // Connecting is bounded by the same 1 s, which a loaded machine
            // can exceed (CI: "Connect timeout (1 s)"): the first write is
            // tried until it lands; the bound under test is what follows.
            try await eventually(within: .seconds(120)) { try await storage.put(TestDocuments.document("main"), as: id) }
            let pids = try server.allPIDs()
            for pid in pids { kill(pid, SIGSTOP) }
            defer { for pid in pids { kill(pid, SIGCONT) } }
            // Ended by the request timeout ("no answer within", or a new
            // connection's "Connect timeout (1 s)"), the policy under test.
            let reasons = [
                await expectUnavailable { try await storage.put(TestDocuments.document("main", generation: 2), as: id) },
                await expectUnavailable { try await storage.read(id, after: nil) },
            ]
            for reason in reasons {
                #expect(reason?.contains("within") == true || reason?.contains("timeout") == true, "\(reason ?? "no reason")")
            }
        }
    }
}

/// Runs `call` until it succeeds, for at most `limit`; rethrows its last
/// error after that.
func eventually(within limit: Duration, _ call: () async throws -> Void) async throws {
    let deadline = ContinuousClock.now + limit
    while true {
        do {
            try await call()
            return
        } catch {
            guard ContinuousClock.now < deadline else { throw error }
            // A pause between tries: a failed connect tells nothing of when
            // the next would land.
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// Runs `call`, expecting `.storageUnavailable`, and returns its reason.
/// Two minutes, far beyond any timeout these tests give a storage, only
/// guard against a hang: a slow machine never fails them, a call that
/// never returns does. How soon a failure comes is the storage's timeout
/// (on event loop timers, not an injectable clock); a test that expects a
/// failure without waiting one out checks its reason instead.
@discardableResult
func expectUnavailable<Value>(
    sourceLocation: SourceLocation = #_sourceLocation, _ call: @escaping @Sendable () async throws -> Value
) async -> String? {
    let (outcome, done) = AsyncStream.makeStream(of: Result<Void, any Error>.self)
    let running = Task {
        do {
            _ = try await call()
            done.yield(.success(()))
        } catch {
            done.yield(.failure(error))
        }
    }
    guard let result = await outcome.first(within: .seconds(120)) else {
        running.cancel()
        Issue.record("the call hung (no answer in two minutes)", sourceLocation: sourceLocation)
        return nil
    }
    switch result {
    case .success:
        Issue.record("the call succeeded", sourceLocation: sourceLocation)
    case .failure(SceneStoreError.storageUnavailable(let location, let reason)):
        #expect(!location.contains(":p@") && !location.contains("wrong"), sourceLocation: sourceLocation)
        return reason
    case .failure(let error):
        Issue.record("expected storageUnavailable, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
#endif
