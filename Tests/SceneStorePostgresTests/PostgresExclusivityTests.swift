#if Postgres
import Foundation
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Synchronization
import Testing

/// A scene's lock excludes every other connection, and is waited for
/// only as long as the lock timeout.
@Suite(.requiresPostgres, .postgresServer, .timeLimit(.minutes(3)))
struct PostgresExclusivityTests {
    /// Read, increment, write: a lost update shows as a short count.
    @Test(arguments: [2, 4])
    func transactionsOnOneSceneNeverOverlap(storages count: Int) async throws {
        let url = try await PostgresServer.current().newDatabase()
        let storages = try (0..<count).map { _ in try PostgresSceneStorage(testing: url) }
        let id = try SceneID("counter")
        let rounds = 200
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let failures = Failures()

        await concurrently(count) { index in
            for _ in 0..<rounds {
                do {
                    try await storages[index].transaction(id) { (transaction) throws(SceneStoreError) in
                        if inside.add(1, ordering: .relaxed).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                        defer { inside.subtract(1, ordering: .relaxed) }
                        let stored = try await transaction.readBytes(skip: nil)
                        guard let current = try? TestDocuments.count(in: stored) else {
                            failures.record(SceneStoreError.storageUnavailable(location: "the counter", reason: "unreadable"))
                            return
                        }
                        try await transaction.write(
                            TestDocuments.document("counter", generation: UInt64(current + 1), values: ["count": .int(current + 1)])
                        )
                    }
                } catch {
                    failures.record(error)
                }
            }
        }

        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(overlaps.load(ordering: .relaxed) == 0)
        await #expect(try TestDocuments.count(in: storages[0].readBytes(id, skip: nil)) == count * rounds)
    }

    @Test func lockHeldElsewhereGivesLockTimeout() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let holder = try PostgresSceneStorage(testing: url)
        let waiter = try PostgresSceneStorage(testing: url, lockTimeout: .milliseconds(400))
        let id = try SceneID("busy")
        let (holding, holdingStarted) = AsyncStream<Int32?>.makeStream()
        let (release, releaseHolder) = AsyncStream<Void>.makeStream()
        let holderTask = Task {
            try? await holder.transaction(id) { (transaction) async throws(SceneStoreError) in
                holdingStarted.yield(try? await transaction.backendPID())
                for await _ in release { break }
            }
        }
        var started = holding.makeAsyncIterator()
        let holderPID = await started.next() ?? nil
        defer { releaseHolder.finish() }

        do {
            try await waiter.put(TestDocuments.document("busy"), as: id)
            Issue.record("the transaction ran while another held the lock")
        } catch SceneStoreError.lockTimeout(let scene, let pid, let waited) {
            #expect(scene == "busy")
            #expect(pid != nil && pid == holderPID)
            // Not before the timeout (how much later depends on the machine).
            #expect(waited >= .milliseconds(350))
        } catch {
            Issue.record("expected lockTimeout, got \(error)")
        }
        // Another scene is not blocked.
        try await waiter.put(TestDocuments.document("free"), as: try SceneID("free"))
        releaseHolder.finish()
        await holderTask.value
    }

    @Test func lockOfASceneWithoutRowIsExclusiveToo() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let first = try PostgresSceneStorage(testing: url)
        let second = try PostgresSceneStorage(testing: url, lockTimeout: .milliseconds(200))
        let id = try SceneID("new")
        try await first.transaction(id) { (_) throws(SceneStoreError) in
            do {
                try await second.transaction(id) { (_) throws(SceneStoreError) in }
                Issue.record("two transactions held one scene's lock")
            } catch SceneStoreError.lockTimeout {
            } catch {
                Issue.record("expected lockTimeout, got \(error)")
            }
        }
        try await second.transaction(id) { (_) throws(SceneStoreError) in }
    }
}

extension SceneStorageTransaction {
    /// The server backend pid of the transaction's connection.
    func backendPID() async throws -> Int32? {
        guard let transaction = self as? PostgresSceneTransaction else { return nil }
        return try await transaction.session.rows("SELECT pg_backend_pid()", as: Int32.self).first
    }
}
#endif
