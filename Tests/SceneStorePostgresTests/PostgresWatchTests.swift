#if Postgres
import Foundation
import Logging
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

extension SceneStorageEvent {
    /// The scene the event is about; `nil` for every scene.
    fileprivate var scene: SceneID? {
        if case .changed(let id) = self { id } else { nil }
    }
}

/// Changes committed by other connections arrive through `LISTEN`, and a
/// dropped connection is followed by a reconnection and a rescan.
// Hang guard: its slowest test took 20 s here (2 cores); 3 minutes, as TSan runs it several times slower.
@Suite(.requiresPostgres, .timeLimit(.minutes(3)))
struct PostgresWatchTests {
    @Test(.postgresServer) func changeByAnotherStorageArrivesAsChanged() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let (writer, events, watch) = try await watched(url)
        defer { watch.cancel() }
        let otherApp = try PostgresSceneStorage(testing: url, app: "another")

        let id = SceneID("main")
        try await writer.put(TestDocuments.document("main"), as: id)
        #expect(await events.wait { $0.scene == id })

        try await writer.transaction(id) { (transaction) throws(SceneStoreError) in
            try await transaction.discard(lastSeen: nil)
        }
        #expect(await events.wait { $0.scene == id })

        // Another app's scenes and transactions that write nothing are not announced.
        try await otherApp.put(TestDocuments.document("elsewhere"), as: SceneID("elsewhere"))
        try await writer.transaction(SceneID("quiet")) { (_) throws(SceneStoreError) in }
        let marker = SceneID("marker")
        try await writer.put(TestDocuments.document("marker"), as: marker)
        #expect(await events.wait { $0.scene == marker })
        let unannounced = [SceneID("elsewhere"), SceneID("quiet")]
        #expect(!events.all.contains { $0.scene.map(unannounced.contains) ?? false })
    }

    @Test(.postgresServer) func eachCommitArrivesOnceAsItsSceneID() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let (writer, events, watch) = try await watched(url)
        defer { watch.cancel() }
        let id = SceneID("main")

        // Written in a transaction, replaced in one statement, written and
        // deleted in one transaction: each commit is one event, its scene id.
        let first = TestDocuments.document("main", generation: 1, incarnation: "abc", values: ["city": .string("Zürich")])
        try await writer.put(first, as: id)
        let second = TestDocuments.document("main", generation: 2, incarnation: "abc", values: ["n": .int(2)])
        #expect(try await writer.replace(id, with: second, ifCurrent: DiskVersion(incarnation: "abc", generation: 1)))
        try await writer.transaction(id) { (transaction) throws(SceneStoreError) in
            try await transaction.write(second)
            try await transaction.discard(lastSeen: nil)
        }
        let marker = SceneID("marker")
        try await writer.put(TestDocuments.document("marker"), as: marker)
        #expect(await events.prefix(4) == [.changed(id), .changed(id), .changed(id), .changed(marker)])
    }

    @Test(.postgresServer) func noneWatchesNothingAndCancelStopsEvents() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let storage = try PostgresSceneStorage(testing: url)
        #expect(await storage.watch(.none, logger: Logger(label: "test"), handler: { _ in }) == nil)

        let (writer, live, liveWatch) = try await watched(url)
        defer { liveWatch.cancel() }
        let events = EventRecorder()
        let watch = try #require(await storage.watch(.automatic, logger: Logger(label: "test"), handler: events.handler))
        // It listens: a change reaches it before the cancel.
        let before = SceneID("before")
        try await writer.put(TestDocuments.document("before"), as: before)
        #expect(await events.wait { $0.scene == before })
        watch.cancel()
        let after = SceneID("after")
        try await writer.put(TestDocuments.document("after"), as: after)
        // Nothing arrives after the cancel, as far as a later change shows:
        // one committed after it reached a watch still listening, and the
        // cancelled watch's notification of `after` would have come first.
        let marker = SceneID("marker")
        try await writer.put(TestDocuments.document("marker"), as: marker)
        #expect(await live.wait { $0.scene == marker })
        #expect(!events.all.contains { $0.scene == after || $0.scene == marker }, "after the cancel: \(events.all)")
    }

    @Test func watcherReconnectsAfterRestartAndRescans() async throws {
        try await PostgresServer.with { server in
            let (writer, events, watch) = try await watched(try await server.newDatabase())
            defer { watch.cancel() }
            let id = SceneID("main")
            try await writer.put(TestDocuments.document("main"), as: id)
            #expect(await events.wait { $0.scene == id })

            try await blockingWork { try server.restart() }
            #expect(await events.wait { $0 == .rescan })

            // The writer's kept connection died in the restart too: it reconnects.
            try await writer.put(TestDocuments.document("main", generation: 2), as: id)
            #expect(await events.wait { $0.scene == id })
        }
    }

    @Test func watchStartedWhileServerIsDownListensOnceItIsUp() async throws {
        try await PostgresServer.with { server in
            let storage = try await storageOnAStoppedServer(server)

            let events = EventRecorder()
            let watch = try #require(await storage.watch(.automatic, logger: Logger(label: "test"), handler: events.handler))
            defer { watch.cancel() }
            try await blockingWork { try server.restart() }
            #expect(await events.wait { $0 == .rescan })
        }
    }

    /// An outage is warned about once when it begins and once when it ends,
    /// whatever the number of retries in between (each at debug level).
    @Test func anOutageWarnsOnceAtItsStartAndOnceAtItsEnd() async throws {
        try await PostgresServer.with { server in
            let storage = try await storageOnAStoppedServer(server)

            let capture = LogCapture()
            let events = EventRecorder()
            let watch = try #require(await storage.watch(.automatic, logger: capture.logger(), handler: events.handler))
            defer { watch.cancel() }
            let attempts = { capture.messages.filter { $0.hasPrefix("cannot listen for changes") }.count }
            // A poll: the watch's retries (on its event loop's timers, no
            // injectable clock) are logged, not announced. The minute only
            // bounds a hang.
            let deadline = ContinuousClock.now + .seconds(60)
            while attempts() < 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(attempts() >= 4, "retries while the server is down")
            try await blockingWork { try server.restart() }
            #expect(await events.wait { $0 == .rescan })
            let warnings = capture.warnings()
            #expect(warnings.filter { $0.hasPrefix("cannot listen for changes") }.count == 1, "\(warnings)")
            #expect(warnings.filter { $0.hasPrefix("listening for changes again") }.count == 1, "\(warnings)")
        }
    }
}

extension PostgresWatchTests {
    /// A storage holding scene "main" on a database of `server`, which is
    /// then stopped.
    func storageOnAStoppedServer(_ server: PostgresServer) async throws -> PostgresSceneStorage {
        let storage = try PostgresSceneStorage(testing: try await server.newDatabase(), requestTimeout: .seconds(1))
        // Connecting is bounded by the same 1 s, which a loaded machine can
        // exceed: the first write is tried until it lands.
        try await eventually(within: .seconds(120)) { try await storage.put(TestDocuments.document("main"), as: SceneID("main")) }
        try await blockingWork { try server.stop() }
        return storage
    }

    /// A storage on `url` whose watch records its events, and a second
    /// storage (its own connections) to write with.
    func watched(_ url: String) async throws -> (writer: PostgresSceneStorage, events: EventRecorder, watch: any SceneStorageWatch) {
        let watching = try PostgresSceneStorage(testing: url)
        let events = EventRecorder()
        let watch = try #require(await watching.watch(.automatic, logger: Logger(label: "test"), handler: events.handler))
        return (try PostgresSceneStorage(testing: url), events, watch)
    }
}
#endif
