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

        await onThreadsOfTheirOwn(count) { index in
            for _ in 0..<rounds {
                do {
                    try storages[index].transaction(id) { (transaction) throws(SceneStoreError) in
                        if inside.add(1, ordering: .relaxed).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                        defer { inside.subtract(1, ordering: .relaxed) }
                        let stored = try transaction.readBytes(skip: nil)
                        guard let current = try? TestDocuments.count(in: stored) else {
                            failures.record(SceneStoreError.storageUnavailable(location: "the counter", reason: "unreadable"))
                            return
                        }
                        try transaction.write(
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
        #expect(try TestDocuments.count(in: storages[0].readBytes(id, skip: nil)) == count * rounds)
    }

    @Test func lockHeldElsewhereGivesLockTimeout() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let holder = try PostgresSceneStorage(testing: url)
        let waiter = try PostgresSceneStorage(testing: url, lockTimeout: .milliseconds(400))
        let id = try SceneID("busy")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holderDone = DispatchSemaphore(value: 0)
        let holderPID = Mutex<Int32?>(nil)

        Thread.detachNewThread {
            try? holder.transaction(id) { (transaction) throws(SceneStoreError) in
                let pid = try? transaction.backendPID()
                holderPID.withLock { $0 = pid }
                holding.signal()
                release.wait()
            }
            holderDone.signal()
        }
        holding.wait()
        defer {
            release.signal()
            holderDone.wait()
        }

        do {
            try waiter.put(TestDocuments.document("busy"), as: id)
            Issue.record("the transaction ran while another held the lock")
        } catch SceneStoreError.lockTimeout(let scene, let pid, let waited) {
            #expect(scene == "busy")
            #expect(pid != nil && pid == holderPID.withLock { $0 })
            // Not before the timeout (how much later depends on the machine).
            #expect(waited >= .milliseconds(350))
        } catch {
            Issue.record("expected lockTimeout, got \(error)")
        }
        // Another scene is not blocked.
        try waiter.put(TestDocuments.document("free"), as: try SceneID("free"))
    }

    @Test func lockOfASceneWithoutRowIsExclusiveToo() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let first = try PostgresSceneStorage(testing: url)
        let second = try PostgresSceneStorage(testing: url, lockTimeout: .milliseconds(200))
        let id = try SceneID("new")
        try first.transaction(id) { (_) throws(SceneStoreError) in
            do {
                try second.transaction(id) { (_) throws(SceneStoreError) in }
                Issue.record("two transactions held one scene's lock")
            } catch SceneStoreError.lockTimeout {
            } catch {
                Issue.record("expected lockTimeout, got \(error)")
            }
        }
        try second.transaction(id) { (_) throws(SceneStoreError) in }
    }
}

extension SceneStorageTransaction {
    /// The server backend pid of the transaction's connection.
    func backendPID() throws -> Int32? {
        guard let transaction = self as? PostgresSceneTransaction else { return nil }
        return try transaction.session.rows("SELECT pg_backend_pid()", as: Int32.self).first
    }
}
#endif
