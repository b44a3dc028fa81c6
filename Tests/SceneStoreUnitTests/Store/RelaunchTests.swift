import Foundation
import SceneStore
import SceneStoreTesting
import Testing

@Suite struct RelaunchTests {
    static let samples: [String: SceneValue] = [
        "bool.true": .bool(true),
        "bool.false": .bool(false),
        "int.min": .int(.min),
        "int.max": .int(.max),
        "int.negative": .int(-5),
        "double.nan": .double(.nan),
        "double.inf": .double(.infinity),
        "double.-inf": .double(-.infinity),
        "double.-0": .double(-0.0),
        "double.tiny": .double(.leastNonzeroMagnitude),
        "double.third": .double(1.0 / 3.0),
        "string.empty": .string(""),
        "string.unicode": .string("日本語 · ünïcödé · 🧭 · \"quotes\" \\ \n\t"),
        "url.file": .url(URL(fileURLWithPath: "/tmp/a file with spaces.txt")),
        "url.http": .url(URL(string: "http://example.com:8080/path?q=1&r=%20#frag")!),
        "data.empty": .data(Data()),
        "data.bytes": .data(Data((0...255).map { UInt8($0) })),
        "clé/avec/ünïcode": .string("keys may be any UTF-8"),
    ]

    @Test func flushedValuesSurviveRelaunch() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        for (key, value) in Self.samples { try store.set(value, forKey: key) }
        try await store.flush()

        let relaunched = try await fixture.relaunch()
        let restored = try await relaunched.store(for: "main").snapshot
        #expect(restored == Self.samples)
        #expect(restored["url.file"].map { URL(sceneValue: $0)?.isFileURL } == true)
        await fixture.tearDown()
    }

    @Test func closingFlushesWhatWasNotFlushed() async throws {
        let fixture = try await SceneStoreFixture()
        try await fixture.registry.store(for: "main").set(9, forKey: "unflushed")
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").value(forKey: "unflushed", default: 0) == 9)
        await fixture.tearDown()
    }

    /// Saving on flush only: the sets after the flush were never saved.
    @Test func crashKeepsExactlyWhatWasFlushedOnFlush() async throws {
        let fixture = try await SceneStoreFixture(configuration: .testing(savePolicy: .onFlush))
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "a")
        try store.set("kept", forKey: "b")
        try await store.flush()
        try store.set(2, forKey: "a")
        try store.set(3, forKey: "c")
        store.removeValue(forKey: "b")

        let relaunched = try await fixture.crash()
        await #expect(try relaunched.store(for: "main").snapshot == ["a": .int(1), "b": .string("kept")])
        await fixture.tearDown()
    }

    @Test func coalescedSavesReachTheDiskWithoutFlush() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .coalesced(.milliseconds(5))))
        let store = try await fixture.registry.store(for: "main")
        let saved = store.updates()
        try store.set(5, forKey: "k")
        // A second registry sees the value only once it is on disk.
        let other = try await fixture.otherRegistry()
        let otherStore = try await other.store(for: "main")
        let arrived = await otherStore.values(forKey: "k", default: 0).first(where: { $0 == 5 })
        #expect(arrived == 5)
        _ = saved
        await fixture.tearDown()
    }

    @Test func sameSceneIDGivesTheSameStore() async throws {
        let fixture = try await SceneStoreFixture()
        let (a, b, other) = try Self.blockingStores(fixture.registry)
        #expect(a === b)
        #expect(other !== a)
        #expect(try await fixture.registry.store(for: "main") === a)
    }

    /// `main` twice and `other`, as synchronous code opens them.
    private static func blockingStores(_ registry: SceneRegistry) throws -> (SceneStore, SceneStore, SceneStore) {
        (try registry.blockingStore(for: "main"), try registry.blockingStore(for: SceneID("main")),
         try registry.blockingStore(for: "other"))
    }

    @Test func closedRegistryRefusesWork() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try await fixture.registry.close()
        #expect(throws: SceneStoreError.closed(scene: "main")) { try store.set(1, forKey: "k") }
        await #expect(throws: SceneStoreError.closed(scene: nil)) { try await fixture.registry.store(for: "main") }
    }

    @Test func discardDeletesTheSceneAndTheStoreStaysUsable() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "old")
        try store.set(1, forKey: "k")
        try await store.flush()
        await #expect(try fixture.registry.sceneIDs() == [SceneID("old")])
        try await fixture.registry.discard("old")
        await #expect(try fixture.registry.sceneIDs().isEmpty)
        #expect(store.snapshot.isEmpty)
        try store.set(2, forKey: "k")
        try await store.flush()
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "old").snapshot == ["k": .int(2)])
        await fixture.tearDown()
    }

    @Test func aDeletedRootIsCreatedAgainByTheNextSave() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        // Moved away in one step (so the store cannot re-create it half-way
        // through a recursive delete), then deleted. Not a discard: no
        // tombstone says so, and the store's memory is the copy left.
        let gone = fixture.directory.appendingPathComponent("gone")
        #expect(rename(fixture.root.path, gone.path) == 0)
        try FileManager.default.removeItem(at: gone)

        try store.set(2, forKey: "k")
        try await store.flush()
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.root.path)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700)
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").value(forKey: "k", default: 0) == 2)
        await fixture.tearDown()
    }
}
