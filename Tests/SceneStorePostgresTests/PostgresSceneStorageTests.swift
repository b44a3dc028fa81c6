#if Postgres
import Foundation
import SceneStore
@testable import SceneStorePostgres
import Testing

/// Documents, tombstones and quarantine through a real server.
// Hang guard: its slowest test took 8 s here (2 cores); 3 minutes, as TSan runs it several times slower.
@Suite(.requiresPostgres, .postgresServer, .timeLimit(.minutes(3)))
struct PostgresSceneStorageTests {
    @Test func documentRoundTripsThroughTransactionAndRead() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = try SceneID("main")
        await #expect(try storage.readBytes(id, skip: nil).isMissing)

        let first = TestDocuments.document("main", generation: 1, values: ["name": .string("Ada")])
        try await storage.put(first, as: id)
        await #expect(try storage.readBytes(id, skip: nil).bytes == first)

        let second = TestDocuments.document("main", generation: 2, values: ["name": .string("Grace")])
        let seen = try await storage.transaction(id) { (transaction) throws(SceneStoreError) -> StoredDocument in
            let before = try await transaction.readBytes(skip: nil)
            try await transaction.write(second)
            return before
        }
        #expect(seen.bytes == first)
        await #expect(try storage.readBytes(id, skip: nil).bytes == second)
        let file = try await SceneFile.decode(try #require(storage.readBytes(id, skip: nil).bytes)).get()
        #expect(file.values["name"] == .string("Grace"))
    }

    @Test func readSkipsTheVersionItIsToldToSkip() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = try SceneID("main")
        try await storage.put(TestDocuments.document("main", generation: 7, incarnation: "abc"), as: id)

        let current = DiskVersion(incarnation: "abc", generation: 7)
        await #expect(try storage.readBytes(id, skip: { $0 == current }).isSkipped)
        await #expect(try storage.readBytes(id, skip: { $0.generation == 6 }).bytes != nil)
    }

    @Test func largeDocumentIsSkippedByItsStoredVersion() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = try SceneID("big")
        let big = TestDocuments.document(
            "big", generation: 3, incarnation: "xyz", values: ["blob": .data(Data(repeating: 7, count: 200_000))]
        )
        try await storage.put(big, as: id)

        await #expect(try storage.readBytes(id, skip: { $0 == DiskVersion(incarnation: "xyz", generation: 3) }).isSkipped)
        await #expect(try storage.readBytes(id, skip: { _ in false }).bytes == big)
    }

    @Test func thrownBodyLeavesNothing() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = try SceneID("main")
        await #expect(throws: SceneStoreError.closed(scene: "main")) {
            try await storage.transaction(id) { (transaction) async throws(SceneStoreError) in
                try await transaction.write(TestDocuments.document("main"))
                throw SceneStoreError.closed(scene: "main")
            }
        }
        await #expect(try storage.readBytes(id, skip: nil).isMissing)
        await #expect(try storage.sceneIDs().isEmpty)
    }

    @Test func replaceLandsOnlyOverTheStoredVersionOfAnUnlockedRow() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = try SceneID("main")
        let first = DiskVersion(incarnation: "abc", generation: 1)
        let second = TestDocuments.document("main", generation: 2, incarnation: "abc", values: ["n": .int(2)])
        await #expect(try !storage.replace(id, with: second, ifCurrent: first), "no row: nothing to replace")
        await #expect(try storage.readBytes(id, skip: nil).isMissing)

        try await storage.put(TestDocuments.document("main", generation: 1, incarnation: "abc"), as: id)
        await #expect(try storage.replace(id, with: second, ifCurrent: first))
        await #expect(try storage.readBytes(id, skip: nil).bytes == second)
        let stale = TestDocuments.document("main", generation: 2, incarnation: "abc", values: ["n": .int(-1)])
        await #expect(try !storage.replace(id, with: stale, ifCurrent: first), "a stale version is not replaced")
        await #expect(try !storage.replace(id, with: stale, ifCurrent: DiskVersion(incarnation: "other", generation: 2)))
        await #expect(try storage.readBytes(id, skip: nil).bytes == second)

        // Between a transaction's read and its write, a replace does nothing, at once.
        let third = TestDocuments.document("main", generation: 3, incarnation: "abc", values: ["n": .int(3)])
        let fourth = TestDocuments.document("main", generation: 4, incarnation: "abc", values: ["n": .int(4)])
        let current = DiskVersion(incarnation: "abc", generation: 2)
        let replacedMeanwhile = try await storage.transaction(id) { (transaction) throws(SceneStoreError) -> Bool in
            #expect(try await transaction.readBytes(skip: nil).bytes == second)
            let replaced = try await storage.replace(id, with: fourth, ifCurrent: current)
            try await transaction.write(third)
            return replaced
        }
        #expect(!replacedMeanwhile)
        await #expect(try storage.readBytes(id, skip: nil).bytes == third)
    }

    @Test func removeSceneAndTombstones() async throws {
        let storage = try PostgresSceneStorage(testing: try await PostgresServer.current().newDatabase())
        let id = try SceneID("main")
        try await storage.put(TestDocuments.document("main"), as: id)

        try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            await #expect(try !transaction.hasTombstone())
            try await transaction.writeTombstone(incarnation: "inc-1")
            try await transaction.removeScene()
        }
        try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            await #expect(try transaction.hasTombstone())
            await #expect(try transaction.readBytes(skip: nil).isMissing)
            try await transaction.write(TestDocuments.document("main", incarnation: "inc-2"))
            try await transaction.removeTombstone()
        }
        try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            await #expect(try !transaction.hasTombstone())
        }
        #expect(storage.scenesWithLeftovers().isEmpty)
    }

    @Test func quarantineMovesTheDocumentAside() async throws {
        let url = try await PostgresServer.current().newDatabase()
        let storage = try PostgresSceneStorage(testing: url)
        let id = try SceneID("broken")
        let damaged = Data("not a scene".utf8)
        try await storage.put(damaged, as: id)
        await #expect(try storage.readBytes(id, skip: nil).bytes == damaged)

        let place = try await storage.transaction(id) { (transaction) throws(SceneStoreError) in
            try await transaction.quarantine(reason: "malformed")
        }
        #expect(place.contains("scenestore_quarantine"))
        #expect(try !place.contains(PostgresServer.current().password))
        await #expect(try storage.readBytes(id, skip: nil).isMissing)

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
        try await other.put(TestDocuments.document("other"), as: try SceneID("other"))

        await #expect(try storage.sceneIDs().map(\.rawValue) == ["alpha", "mid", "zeta"])
        await #expect(try other.sceneIDs().map(\.rawValue) == ["other"])
        await #expect(try other.readBytes(try SceneID("alpha"), skip: nil).isMissing)
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
    var isSkipped: Bool { if case .skipped = self { true } else { false } }
    var bytes: Data? { if case .bytes(let data) = self { data } else { nil } }
}
#endif
