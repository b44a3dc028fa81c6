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
@Suite(.timeLimit(.minutes(10)))
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
        try await expectUnavailable(within: .seconds(2)) { try await storage.readBytes(try SceneID("main"), skip: nil) }
        try await expectUnavailable(within: .seconds(2)) { try await storage.put(TestDocuments.document("main"), as: try SceneID("main")) }
        try await expectUnavailable(within: .seconds(2)) { try await storage.sceneIDs() }
    }

    @Test(.requiresPostgres) func wrongPasswordIsStorageUnavailable() async throws {
        try await PostgresServer.with { server in
            let storage = try PostgresSceneStorage(testing: "postgres://scenestore:wrong@127.0.0.1:\(server.port)/postgres")
            try await expectUnavailable(within: .seconds(3)) { try await storage.sceneIDs() }
        }
    }

    @Test(.requiresPostgres) func stoppedServerIsStorageUnavailableWithinBoundedTime() async throws {
        try await PostgresServer.with { server in
            let storage = try PostgresSceneStorage(testing: try await server.newDatabase(), requestTimeout: .seconds(2))
            let id = try SceneID("main")
            try await eventually(within: .seconds(120)) { try await storage.put(TestDocuments.document("main"), as: id) }
            try await blockingWork { try server.stop() }
            // The kept connections died with the server; new ones are refused.
            try await expectUnavailable(within: .seconds(5)) { try await storage.put(TestDocuments.document("main", generation: 2), as: id) }
            try await expectUnavailable(within: .seconds(5)) { try await storage.readBytes(id, skip: nil) }
            try await blockingWork { try server.restart() }
            await #expect(try storage.readBytes(id, skip: nil).bytes == TestDocuments.document("main"))
        }
    }

    /// A server that accepts connections but never answers (its processes
    /// stopped with SIGSTOP) costs the request timeout, not forever.
    @Test(.requiresPostgres) func serverThatDoesNotAnswerIsStorageUnavailableAfterTheTimeout() async throws {
        try await PostgresServer.with { server in
            let storage = try PostgresSceneStorage(testing: try await server.newDatabase(), requestTimeout: .seconds(1))
            let id = try SceneID("main")
            // Connecting is bounded by the same 1 s, which a loaded machine
            // can exceed (CI: "Connect timeout (1 s)"): the first write is
            // tried until it lands; the bound under test is what follows.
            try await eventually(within: .seconds(120)) { try await storage.put(TestDocuments.document("main"), as: id) }
            let pids = try server.allPIDs()
            for pid in pids { kill(pid, SIGSTOP) }
            defer { for pid in pids { kill(pid, SIGCONT) } }
            try await expectUnavailable(within: .seconds(4)) { try await storage.put(TestDocuments.document("main", generation: 2), as: id) }
            try await expectUnavailable(within: .seconds(4)) { try await storage.readBytes(id, skip: nil) }
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
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// Runs `call`, expecting `.storageUnavailable` within `limit`. The call
/// and its timing run on a queue of the test's own (``OwnQueue``): how
/// busy the cooperative pool is must not count.
func expectUnavailable<Value>(
    within limit: Duration, sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> Value
) async throws {
    let (outcome, elapsed) = await withTaskExecutorPreference(OwnQueue()) { () async -> ((any Error)?, Duration) in
        let started = ContinuousClock.now
        do {
            _ = try await call()
            return (nil, ContinuousClock.now - started)
        } catch {
            return (error, ContinuousClock.now - started)
        }
    }
    switch outcome {
    case nil:
        Issue.record("the call succeeded", sourceLocation: sourceLocation)
    case SceneStoreError.storageUnavailable(let location, let reason)?:
        #expect(elapsed < limit, "took \(elapsed): \(reason)", sourceLocation: sourceLocation)
        #expect(!location.contains(":p@") && !location.contains("wrong"), sourceLocation: sourceLocation)
    case let error?:
        Issue.record("expected storageUnavailable, got \(error)", sourceLocation: sourceLocation)
    }
}
#endif
