import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// What a discard leaves in the root: nothing of the scene when no other
/// read-write registry has the root open; its tombstone
/// while one has, whose stores may hold the incarnation that ended.
// Hang guard: each test takes well under a second here (2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct DiscardSideFileTests {
    static func fixture() async throws -> SceneStoreFixture {
        var configuration = SceneRegistry.Configuration.testing(savePolicy: .onFlush)
        configuration.watcher = .none
        return try await SceneStoreFixture(configuration: configuration)
    }

    /// The root's entries that belong to scene `id` (its file, side files),
    /// once its registries closed (previous versions unlink off the path).
    static func files(of id: SceneID, in fixture: SceneStoreFixture) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: fixture.root.path).filter { $0.contains(id.rawValue) }.sorted()
    }

    @Test func aWindowClosedForGoodLeavesNoFileOfItsOwn() async throws {
        let fixture = try await Self.fixture()
        let window = try await fixture.registry.newScene()
        try window.set("draft", forKey: "text")
        try await window.flush()
        try await fixture.registry.closeForGood(window.id)
        try await fixture.registry.close()
        #expect(try Self.files(of: window.id, in: fixture) == [])
        await fixture.tearDown()
    }

    @Test func aDiscardNobodyElseCanSeeLeavesNoFileOfTheScene() async throws {
        let fixture = try await Self.fixture()
        let store = try await fixture.registry.store(for: "notes")
        try store.set(1, forKey: "k")
        try await store.flush()
        try await fixture.registry.discard("notes")
        try await fixture.registry.close()
        #expect(try Self.files(of: store.id, in: fixture) == [])
        await fixture.tearDown()
    }

    /// Another registry's store read the scene and has an edit not saved
    /// yet: the tombstone stays, so its save keeps that edit alone and
    /// never writes the discarded value again.
    @Test func aTombstoneAnotherRegistryMayNeedStaysAndNothingDiscardedComesBack() async throws {
        let fixture = try await Self.fixture()
        let window = try await fixture.registry.newScene()
        try window.set("draft", forKey: "text")
        try await window.flush()
        let elsewhere = try await fixture.otherRegistry().store(for: window.id)
        try elsewhere.set(1, forKey: "late")

        try await fixture.registry.closeForGood(window.id)
        #expect(try Self.files(of: window.id, in: fixture).contains(".\(window.id.rawValue)~discarded"))
        try await elsewhere.flush()
        #expect(try await fixture.stored("text", scene: window.id.rawValue) == nil, "the discarded value came back")
        #expect(try await fixture.stored("late", scene: window.id.rawValue) == .int(1))
        await fixture.tearDown()
    }

    @Test func discardingARestorableWindowClosesItForGood() async throws {
        let fixture = try await Self.fixture()
        let window = try await fixture.registry.newScene(title: "Notes")
        try window.set("draft", forKey: "text")
        let relaunched = try await fixture.relaunch()
        try await relaunched.discard(window.id)
        #expect(try await relaunched.sessions().isEmpty)
        try await relaunched.close()
        #expect(try Self.files(of: window.id, in: fixture) == [])
        await fixture.tearDown()
    }

    /// A window a registry holds stays open: its process shows it, emptied.
    @Test func discardingAHeldWindowEmptiesItAndKeepsIt() async throws {
        let fixture = try await Self.fixture()
        let window = try await fixture.registry.newScene(title: "Notes")
        try window.set("draft", forKey: "text")
        try await window.flush()
        try await fixture.otherRegistry().discard(window.id)
        #expect(try await fixture.registry.sessions().map(\.title) == ["Notes"])
        #expect(try await fixture.stored("text", scene: window.id.rawValue) == nil)
        await fixture.tearDown()
    }

    /// Another registry opens and writes the scene while a window is
    /// closed for good, 200 rounds: whichever comes first, the discarded
    /// value never comes back, and what that registry saves last is there.
    @Test func aRegistryOpeningDuringACloseNeverBringsTheDiscardedValueBack() async throws {
        let fixture = try await Self.fixture()
        for round in 0..<200 {
            let window = try await fixture.registry.newScene()
            try window.set("draft", forKey: "text")
            try await window.flush()
            async let closed: Void = fixture.registry.closeForGood(window.id)
            let other = try await fixture.otherRegistry()
            let store = try await other.store(for: window.id)
            try store.set(round, forKey: "mine")
            try await store.flush()
            try await closed
            try store.set(round, forKey: "after")
            try await store.flush()
            let scene = window.id.rawValue
            #expect(try await fixture.stored("text", scene: scene) == nil, "round \(round): the discarded value came back")
            #expect(try await fixture.stored("after", scene: scene) == .int(round), "round \(round)")
            try await other.close()
        }
        await fixture.tearDown()
    }
}
