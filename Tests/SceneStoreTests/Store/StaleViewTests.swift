import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// A local `set` or remove is an intent to write, whatever this store
/// believes the disk holds: its view may be stale (another process's save
/// not seen yet — a watcher that polls, or that has not caught up). Each
/// test repeats the A, B, A-again pattern on one key, with no watcher at
/// all, so A's view is stale every round rather than by chance.
@Suite struct StaleViewTests {
    static let rounds = 20

    /// A and B are two registries on one root, neither watching: each
    /// meets the other only through the disk, as a polling watcher between
    /// two polls does.
    static func twoWriters() throws -> (SceneStoreFixture, SceneStore, SceneStore) {
        var configuration = SceneRegistry.Configuration.testing
        configuration.watcher = .none
        let fixture = try SceneStoreFixture(configuration: configuration)
        return (fixture, try fixture.registry.store(for: "main"), try fixture.otherRegistry().store(for: "main"))
    }

    @Test func aSetEqualToAStaleValueIsWritten() async throws {
        let (fixture, a, b) = try Self.twoWriters()
        for round in 0..<Self.rounds {
            try a.set("a\(round)", forKey: "k")
            try await a.flush()
            try b.set("b\(round)", forKey: "k")
            try await b.flush()
            // A still shows a<round>: the same set again must reach the disk.
            try a.set("a\(round)", forKey: "k")
            try await a.flush()
            #expect(try fixture.stored("k") == .string("a\(round)"), "round \(round)")
        }
        await fixture.tearDown()
    }

    @Test func aRemoveOfAKeyThisStoreHasNotSeenIsWritten() async throws {
        let (fixture, a, b) = try Self.twoWriters()
        for round in 0..<Self.rounds {
            try b.set(round, forKey: "k")
            try await b.flush()
            // A has never seen k (or saw it removed): the remove must still win.
            a.removeValue(forKey: "k")
            try await a.flush()
            #expect(try fixture.stored("k") == nil, "round \(round)")
        }
        await fixture.tearDown()
    }

    @Test func aRepeatedSetWithNothingElseWritingWritesNoNewVersion() async throws {
        let (fixture, a, _) = try Self.twoWriters()
        try a.set(1, forKey: "k")
        try await a.flush()
        let generation = a.generation
        for _ in 0..<5 {
            try a.set(1, forKey: "k")
            a.removeValue(forKey: "absent")
            try await a.flush()
        }
        #expect(a.generation == generation)
        await fixture.tearDown()
    }

    @Test func aSetEqualToAPendingValueStaysOneEdit() async throws {
        let (fixture, a, _) = try Self.twoWriters()
        let changes = a.changes()
        try a.set(1, forKey: "k")
        try a.set(1, forKey: "k")
        try a.set(2, forKey: "k")
        try await a.flush()
        let seen = await changes.prefix(2, within: .seconds(30))
        #expect(seen.map(\.newValue) == [.int(1), .int(2)])
        #expect(a.generation == 1)
        await fixture.tearDown()
    }
}

extension SceneStoreFixture {
    /// What a fresh registry on the root reads for `key` of scene "main".
    func stored(_ key: String, scene: String = "main") throws -> SceneValue? {
        var configuration = SceneRegistry.Configuration.testing
        configuration.watcher = .none
        configuration.access = .readOnly
        let reader = try SceneRegistry(root: root, configuration: configuration)
        defer { reader.abandon() }
        return try reader.store(for: scene).value(forKey: key, as: SceneValue.self)
    }
}
