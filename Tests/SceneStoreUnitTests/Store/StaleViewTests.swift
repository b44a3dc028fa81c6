import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// A local `set` or remove is an intent to write, whatever this store
/// believes the disk holds: its view may be stale (another process's save
/// not seen yet — a watcher that polls, or that has not caught up). Each
/// test repeats the A, B, A-again pattern on one key: with no watcher or a
/// polling one, A's view is stale every round rather than by chance; with
/// inotify, whenever A is quicker than the watcher.
@Suite struct StaleViewTests {
    static let rounds = 20

    enum Watching: String, CaseIterable, Sendable {
        case none, polling, inotify

        var preference: WatcherPreference {
            switch self {
            case .none: .none
            case .polling: .polling(interval: .milliseconds(250))
            case .inotify: .automatic
            }
        }
    }

    /// A and B are two registries on one root: each meets the other
    /// through the disk, and through its watcher if it has one.
    static func twoWriters(
        _ watching: Watching = .none, savePolicy: SceneRegistry.SavePolicy = SceneRegistry.Configuration.testing.savePolicy
    ) async throws -> (SceneStoreFixture, SceneStore, SceneStore) {
        var configuration = SceneRegistry.Configuration.testing(savePolicy: savePolicy)
        configuration.watcher = watching.preference
        let fixture = try await SceneStoreFixture(configuration: configuration)
        return (fixture, try await fixture.registry.store(for: "main"), try await fixture.otherRegistry().store(for: "main"))
    }

    @Test(arguments: Watching.allCases)
    func aSetEqualToAStaleValueIsWritten(_ watching: Watching) async throws {
        let (fixture, a, b) = try await Self.twoWriters(watching)
        var lost = 0
        for round in 0..<Self.rounds {
            try a.set("a\(round)", forKey: "k")
            try await a.flush()
            try b.set("b\(round)", forKey: "k")
            try await b.flush()
            // A still shows a<round>: the same set again must reach the disk.
            try a.set("a\(round)", forKey: "k")
            try await a.flush()
            if try await fixture.stored("k") != .string("a\(round)") { lost += 1 }
        }
        #expect(lost == 0, "\(watching): lost \(lost) of \(Self.rounds)")
        print("stale view, set, \(watching): lost \(lost) of \(Self.rounds)")
        await fixture.tearDown()
    }

    @Test(arguments: Watching.allCases)
    func aRemoveOfAKeyThisStoreHasNotSeenIsWritten(_ watching: Watching) async throws {
        let (fixture, a, b) = try await Self.twoWriters(watching)
        var lost = 0
        for round in 0..<Self.rounds {
            try b.set(round, forKey: "k")
            try await b.flush()
            // A has never seen k (or saw it removed): the remove must still win.
            a.removeValue(forKey: "k")
            try await a.flush()
            if try await fixture.stored("k") != nil { lost += 1 }
        }
        #expect(lost == 0, "\(watching): lost \(lost) of \(Self.rounds)")
        print("stale view, remove, \(watching): lost \(lost) of \(Self.rounds)")
        await fixture.tearDown()
    }

    @Test func aRepeatedSetWithNothingElseWritingWritesNoNewVersion() async throws {
        let (fixture, a, _) = try await Self.twoWriters()
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

    /// Saving on flush only, so that the three sets are pending together.
    @Test func aSetEqualToAPendingValueStaysOneEditOnFlush() async throws {
        let (fixture, a, _) = try await Self.twoWriters(savePolicy: .onFlush)
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
    func stored(_ key: String, scene: String = "main") async throws -> SceneValue? {
        var configuration = SceneRegistry.Configuration.testing
        configuration.watcher = .none
        configuration.readOnly = true
        let reader = try await SceneRegistry(root: root, configuration: configuration)
        defer { reader.abandon() }
        return try await reader.store(for: scene).value(forKey: key, as: SceneValue.self)
    }
}
