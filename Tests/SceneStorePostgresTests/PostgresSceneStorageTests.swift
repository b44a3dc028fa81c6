#if Postgres
import Foundation
@testable import SceneStore
@testable import SceneStorePostgres
import Testing

/// Documents, tombstones and quarantine through a real server.
// Hang guard: its slowest test took 8 s here (2 cores); 3 minutes, as TSan runs it several times slower.
@Suite(.requiresPostgres, .postgresServer, .timeLimit(.minutes(3)))
struct PostgresSceneStorageTests {
    @Test func documentRoundTripsThroughTransactionAndRead() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = SceneID("main")
        await #expect(try storage.read(id, after: nil).isMissing)

        let first = TestDocuments.document("main", generation: 1, values: ["name": .string("Ada")])
        try await storage.put(first, as: id)
        await #expect(try storage.read(id, after: nil).bytes == first)

        let second = TestDocuments.document("main", generation: 2, values: ["name": .string("Grace")])
        let seen = try await storage.transaction(id) { (transaction) throws(SceneStoreError) -> StoredDocument in
            let before = try await transaction.read(after: nil)
            try await transaction.write(second)
            return before
        }
        #expect(seen.bytes == first)
        await #expect(try storage.read(id, after: nil).bytes == second)
        let file = try await SceneFile.decode(try #require(storage.read(id, after: nil).bytes)).get()
        #expect(file.values["name"] == .string("Grace"))
    }

    /// A large document is read whole in one statement, and within the
    /// limits only.
    @Test func aLargeDocumentIsReadWhole() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = SceneID("big")
        let big = TestDocuments.document(
            "big", generation: 3, incarnation: "xyz", values: ["blob": .data(Data(repeating: 7, count: 200_000))]
        )
        try await storage.put(big, as: id)
        await #expect(try storage.read(id, after: nil).bytes == big)
    }

    @Test func thrownBodyLeavesNothing() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = SceneID("main")
        await #expect(throws: SceneStoreError.closed(scene: "main")) {
            try await storage.transaction(id) { (transaction) async throws(SceneStoreError) in
                try await transaction.write(TestDocuments.document("main"))
                throw SceneStoreError.closed(scene: "main")
            }
        }
        await #expect(try storage.read(id, after: nil).isMissing)
        await #expect(try storage.sceneIDs().isEmpty)
    }

    @Test func replaceLandsOnlyOverTheStoredVersionOfAnUnlockedRow() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = SceneID("main")
        let first = DiskVersion(incarnation: "abc", generation: 1)
        let second = TestDocuments.document("main", generation: 2, incarnation: "abc", values: ["n": .int(2)])
        await #expect(try !storage.replace(id, with: second, ifCurrent: first), "no row: nothing to replace")
        await #expect(try storage.read(id, after: nil).isMissing)

        try await storage.put(TestDocuments.document("main", generation: 1, incarnation: "abc"), as: id)
        await #expect(try storage.replace(id, with: second, ifCurrent: first))
        await #expect(try storage.read(id, after: nil).bytes == second)
        let stale = TestDocuments.document("main", generation: 2, incarnation: "abc", values: ["n": .int(-1)])
        await #expect(try !storage.replace(id, with: stale, ifCurrent: first), "a stale version is not replaced")
        await #expect(try !storage.replace(id, with: stale, ifCurrent: DiskVersion(incarnation: "other", generation: 2)))
        await #expect(try storage.read(id, after: nil).bytes == second)

        // Between a transaction's read and its write, a replace does nothing, at once.
        let third = TestDocuments.document("main", generation: 3, incarnation: "abc", values: ["n": .int(3)])
        let fourth = TestDocuments.document("main", generation: 4, incarnation: "abc", values: ["n": .int(4)])
        let current = DiskVersion(incarnation: "abc", generation: 2)
        let replacedMeanwhile = try await storage.transaction(id) { (transaction) throws(SceneStoreError) -> Bool in
            #expect(try await transaction.read(after: nil).bytes == second)
            let replaced = try await storage.replace(id, with: fourth, ifCurrent: current)
            try await transaction.write(third)
            return replaced
        }
        #expect(!replacedMeanwhile)
        await #expect(try storage.read(id, after: nil).bytes == third)
    }

    /// A save over the version a store read appends its record to the
    /// row's document (the bytes before the log's end stay as they were),
    /// and a reader that read that version takes only what follows; over a
    /// stale version nothing is written.
    @Test func aSaveAppendsItsRecordAndAReaderTakesOnlyTheRecord() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = SceneID("main")
        let values = Dictionary(uniqueKeysWithValues: (0..<1000).map { ("key \($0)", SceneValue.string("value \($0)")) })
        let base = SceneFile(scene: "main", generation: 1, incarnation: "abc", writer: TestDocuments.writer, values: values)
        let encoder = Locked(SceneFileEncoder())
        let ends = Locked<[LogPosition?]>([])
        func writing(from position: LogPosition?) -> SaveWriting {
            SaveWriting(encoder: encoder, position: position) { end in ends.withLock { $0.append(end) } }
        }
        let position = try #require(try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            try await transaction.write(base, over: nil, edited: [], using: writing(from: nil))
        })
        let written = try #require(try await storage.read(id, after: nil).bytes)

        let record = SceneFileRecord(generation: 2, writer: TestDocuments.writer, set: [("key 7", .int(7))], removed: ["key 8"])
        await #expect(try storage.commit(id, record, over: base, using: writing(from: position)) == .appended)
        let appended = try #require(try await storage.read(id, after: nil).bytes)
        #expect(appended.prefix(position.offset) == written, "the document was written whole")
        var expected = base
        #expect(expected.apply([record]) == nil)
        #expect(try SceneFile.decode(appended).get() == expected)
        let end = try #require(ends.withLock { $0.last } ?? nil)

        let tail = try #require(try await storage.read(id, after: position).continued)
        #expect(tail.count < 200, "\(tail.count) bytes read after the position")
        let (records, count) = try #require(SceneFileReader.records(in: tail, after: position))
        #expect(records.map(\.generation) == [2])
        #expect(position.advanced(over: records, to: count) == end)
        let after = try #require(try await storage.read(id, after: end).continued, "the log's end follows the last record")
        #expect(SceneFileReader.records(in: after, after: end)?.records.isEmpty == true)

        let stale = SceneFileRecord(generation: 2, writer: TestDocuments.writer, set: [("key 1", .int(1))], removed: [])
        await #expect(try storage.commit(id, stale, over: base, using: writing(from: position)) == .refused, "over a stale version")
        await #expect(try storage.read(id, after: nil).bytes == appended)

        let rewritten = TestDocuments.document("main", generation: 9, incarnation: "abc")
        try await storage.put(rewritten, as: id)
        await #expect(try storage.read(id, after: end).bytes == rewritten, "a whole write since is read whole")
    }

    /// A store whose log outgrew its bound writes it whole, in the one
    /// statement, and goes on appending from its new end: it knows where
    /// the log ends after every save, compactions included, without
    /// reading its own scene (no watcher). Such a whole write once left
    /// that place behind, and every later save was whole too.
    @Test func savesGoOnAppendingAfterACompaction() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let registry = try await SceneRegistry(postgres: url, appID: "compaction", configuration: .init(savePolicy: .onFlush, watcher: .none))
        let store = try await registry.store(for: "main")
        for key in 0..<20 { try store.set(0, forKey: "k\(key)") }
        try await store.flush()
        var compactions = 0
        var lastOffset = 0
        for round in 1...300 {
            try store.set(round, forKey: "k\(round % 20)")
            try await store.flush()
            let (position, version) = store.state.withLock { ($0.reader.position, $0.diskFile?.version) }
            let end = try #require(position, "no position after save \(round)")
            #expect(end.version == version, "save \(round) left the log's position behind")
            if end.offset < lastOffset { compactions += 1 }
            lastOffset = end.offset
        }
        #expect(compactions > 0, "the log never outgrew its bound")
        try await registry.close()
    }

    @Test func discardRecordsATombstoneAndRemovesTheDocument() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = SceneID("main")
        try await storage.put(TestDocuments.document("main"), as: id)

        try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            await #expect(try !transaction.discarded("inc-1"))
            try await transaction.discard(lastSeen: nil)
        }
        try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            await #expect(try transaction.discarded("inc-1"))
            await #expect(try transaction.read(after: nil).isMissing)
            try await transaction.write(TestDocuments.document("main", incarnation: "inc-2"))
        }
        try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            await #expect(try transaction.discarded("inc-1"), "a new document does not forget the discard")
            await #expect(try !transaction.discarded("inc-2"))
        }

        // No document: the incarnation the store last saw is recorded; none known, nothing is.
        let gone = SceneID("gone")
        try await storage.transaction(gone) { (transaction) throws(SceneStoreError) in
            try await transaction.discard(lastSeen: nil)
            await #expect(try !transaction.discarded("seen"))
            try await transaction.discard(lastSeen: "seen")
            await #expect(try transaction.discarded("seen"))
        }

        // The newest discards are remembered, the oldest forgotten.
        let many = SceneID("many")
        try await storage.transaction(many) { (transaction) throws(SceneStoreError) in
            for index in 0...PostgresSceneTransaction.discardsRemembered {
                try await transaction.discard(lastSeen: "inc-\(index)")
            }
            await #expect(try !transaction.discarded("inc-0"))
            await #expect(try transaction.discarded("inc-1"))
            await #expect(try transaction.discarded("inc-\(PostgresSceneTransaction.discardsRemembered)"))
        }
    }

    @Test func quarantineMovesTheDocumentAside() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let storage = try PostgresSceneStorage(testing: url)
        let id = SceneID("broken")
        let damaged = Data("not a scene".utf8)
        try await storage.put(damaged, as: id)
        await #expect(try storage.read(id, after: nil).bytes == damaged)

        let place = try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            try await transaction.quarantine(reason: "malformed")
        }
        #expect(place.contains("scenestore_quarantine"))
        #expect(try !place.contains(PostgresServer.current().password))
        await #expect(try storage.read(id, after: nil).isMissing)

        let kept = try await PostgresServer.current().withConnection(database: databaseName(url)) { connection in
            let rows = try await connection.query(
                "SELECT document, reason FROM scenestore_quarantine WHERE app = 'tests' AND scene = 'broken'",
                logger: PostgresServer.logger
            )
            var found: [(Data, String)] = []
            for try await row in rows.decode((Data, String).self) { found.append(row) }
            return found
        }
        #expect(kept.count == 1)
        #expect(kept.first?.0 == damaged)
        #expect(kept.first?.1 == "malformed")
    }

    @Test func sceneIDsAreSortedAndPerApp() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let storage = try PostgresSceneStorage(testing: url, app: "one")
        let other = try PostgresSceneStorage(testing: url, app: "two")
        for name in ["zeta", "alpha", "mid"] {
            try await storage.put(TestDocuments.document(name), as: try SceneID(name))
        }
        try await other.put(TestDocuments.document("other"), as: SceneID("other"))

        await #expect(try storage.sceneIDs().map(\.rawValue) == ["alpha", "mid", "zeta"])
        await #expect(try other.sceneIDs().map(\.rawValue) == ["other"])
        await #expect(try other.read("alpha", after: nil).isMissing)
    }

    @Test func schemaIsCreatedOnceByConcurrentFirstUsers() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let storages = try (0..<4).map { _ in try PostgresSceneStorage(testing: url) }
        let failures = Failures()
        await concurrently(storages.count) { index in
            do {
                try await storages[index].put(TestDocuments.document("s\(index)"), as: try SceneID("s\(index)"))
            } catch {
                failures.record(error)
            }
        }
        #expect(failures.all.isEmpty)
        await #expect(try storages[0].sceneIDs().count == 4)
    }
}

/// The database name at the end of a test URL.
func databaseName(_ url: String) -> String {
    String(url.split(separator: "/").last ?? "")
}

extension StoredDocument {
    var isMissing: Bool { if case .missing = self { true } else { false } }
    var continued: Data? { if case .continued(let tail) = self { tail } else { nil } }
    var bytes: Data? { if case .bytes(let data) = self { data } else { nil } }
}
#endif
