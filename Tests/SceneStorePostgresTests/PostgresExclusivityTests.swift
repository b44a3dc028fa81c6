#if Postgres
import Foundation
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Synchronization
import Testing

/// A scene's lock excludes every other connection, and is waited for
/// only as long as the lock timeout.
// Hang guard: its slowest test took 18 s in its layer here, 134 s in the whole suite (every test at once on 2 cores); 4 minutes.
@Suite(.requiresPostgres, .postgresServer, .timeLimit(.minutes(4)))
struct PostgresExclusivityTests {
    /// Read, increment, write: a lost update shows as a short count.
    @Test(arguments: [2, 4])
    func transactionsOnOneSceneNeverOverlap(storages count: Int) async throws {
        let url = try await PostgresServer.current().newDatabase()
        let storages = try (0..<count).map { _ in try PostgresSceneStorage(testing: url) }
        let id = SceneID("counter")
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
                        let stored = try await transaction.read(after: nil)
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
        await #expect(try TestDocuments.count(in: storages[0].read(id, after: nil)) == count * rounds)
    }

    @Test func lockHeldElsewhereGivesLockTimeout() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let holder = try PostgresSceneStorage(testing: url)
        let waiter = try PostgresSceneStorage(testing: url, lockTimeout: .milliseconds(400))
        let id = SceneID("busy")
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
        try await waiter.put(TestDocuments.document("free"), as: SceneID("free"))
        releaseHolder.finish()
        await holderTask.value
    }

    /// The lock of the windows' records (new windows, reopens, closes:
    /// the scene `.windows`) held by another connection for longer than a statement may take is waited
    /// for as long as the lock timeout, as a scene's lock is: launches
    /// restoring windows together take turns on it, and only a wait past
    /// the lock timeout fails, with `lockTimeout` naming the holder.
    @Test func windowsLockIsWaitedForUpToTheLockTimeoutNotTheRequestTimeout() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let patient = try PostgresSceneStorage(testing: url, lockTimeout: .seconds(60), requestTimeout: .seconds(2))
        // Connected before the clock matters; on a loaded machine the first
        // connect may take longer than the request timeout.
        var connected = false
        for _ in 1...5 where !connected {
            connected = (try? await WindowRecords(storage: patient).all()) != nil
        }
        #expect(connected)
        let impatient = try PostgresSceneStorage(testing: url, lockTimeout: .milliseconds(300))
        let holder = try await PostgresSession.connect(to: patient.database, timeout: .seconds(5), logger: patient.logger)
        defer { holder.close() }
        let key = PostgresNames.lockKey(app: patient.app, scene: .windows)
        try await holder.query("SELECT pg_advisory_lock(\(key))")
        let holderPID = try await holder.rows("SELECT pg_backend_pid()", as: Int32.self).first
        let id = SceneID("window")
        let record = SessionRecord(id: id, created: Date(), lastActive: Date(), open: true, pid: getpid(), title: "waited")
        let waiting = Task {
            try await WindowRecords(storage: patient).update([id]) { $0[id] = record }
        }
        // Once the patient writer waits (pg_locks sends no event: polled)...
        var waiters: [Int32] = []
        while waiters.first ?? 0 == 0 {
            try await Task.sleep(for: .milliseconds(10))
            waiters = try await holder.rows(
                "SELECT count(*)::int4 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", as: Int32.self)
        }
        // ...held until a wait for the same lock begun after it, bounded
        // by the same request timeout, has run out: a patient writer bound
        // by its request timeout would have failed first.
        let sentinel = try await PostgresSession.connect(to: patient.database, timeout: .seconds(60), logger: patient.logger)
        defer { sentinel.close() }
        var sentinelError: SceneStoreError?
        do {
            _ = try await sentinel.query("SELECT pg_advisory_lock(\(key))", timeout: patient.requestTimeout)
        } catch {
            sentinelError = error
        }
        switch sentinelError {
        case .storageUnavailable(_, let reason)?:
            #expect(reason.contains("within"), "the sentinel's wait ended otherwise: \(reason)")
        case let error?:
            Issue.record("the sentinel's wait ended otherwise: \(error)")
        case nil:
            Issue.record("the sentinel got the sessions lock while another held it")
        }

        do {
            try await WindowRecords(storage: impatient).update([id]) { $0[id] = nil }
            Issue.record("the sessions changed while another held their lock")
        } catch SceneStoreError.lockTimeout(let scene, let pid, _) {
            #expect(scene == SceneID.windows.rawValue)
            #expect(pid != nil && pid == holderPID)
        } catch {
            Issue.record("expected lockTimeout, got \(error)")
        }
        try await holder.query("SELECT pg_advisory_unlock(\(key))")
        try await waiting.value
        let stored = try await WindowRecords(storage: patient).all()
        #expect(stored.values.map(\.title) == ["waited"])
        patient.release()
        impatient.release()
    }

    @Test func lockOfASceneWithoutRowIsExclusiveToo() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let first = try PostgresSceneStorage(testing: url)
        let second = try PostgresSceneStorage(testing: url, lockTimeout: .milliseconds(200))
        let id = SceneID("new")
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
