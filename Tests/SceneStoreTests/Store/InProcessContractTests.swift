import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// The storage contract in one process, where registries stand in for
/// processes: on a scene root in memory (`SceneStoreFixture(inMemory:)`,
/// what apps use in their own tests), on one on disk and on PostgreSQL.
/// Whatever holds on one holds on the others.
// Hang guard: its slowest test took 14 s here (2 cores); 3 minutes, as TSan runs it several times slower.
@Suite(.timeLimit(.minutes(3)))
struct InProcessContractTests {
    enum Medium: String, Sendable, CustomTestStringConvertible {
        case memory, files, postgres
        var testDescription: String { rawValue }

        static var allCases: [Medium] {
            #if Postgres
            [.memory, .files, .postgres]
            #else
            [.memory, .files]
            #endif
        }
    }

    /// Where one test's scenes live: a fresh root (in memory or on disk)
    /// or database; ``StoragePlace/registry(_:)`` opens another "process" on them.
    typealias Place = StoragePlace

    func place(_ medium: Medium) async throws -> Place {
        switch medium {
        case .memory: StoragePlace(fixture: try await SceneStoreFixture(inMemory: true), databaseURL: nil)
        case .files: try await StoragePlace.make(.files)
        case .postgres: try await StoragePlace.make(.postgres)
        }
    }

    /// 4 registries set distinct keys at once; a fresh one sees every key.
    @Test(arguments: Medium.allCases)
    func distinctKeysFromFourWritersAreAllKept(_ medium: Medium) async throws {
        let place = try await place(medium)
        var writers: [SceneRegistry] = []
        for _ in 0..<4 { writers.append(try await place.registry()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    let store = try await writer.store(for: "main")
                    for key in 0..<25 {
                        try store.set(key, forKey: "w\(index)-\(key)")
                        try await store.flush()
                    }
                }
            }
            try await group.waitForAll()
        }
        for writer in writers { try await writer.close() }
        let reader = try await place.registry()
        await #expect(try reader.store(for: "main").snapshot.count == 100)
        try await reader.close()
        await place.tearDown()
    }

    /// 4 registries increment one key 25 times each: 100, none lost.
    @Test(arguments: Medium.allCases)
    func updatesFromFourWritersLoseNone(_ medium: Medium) async throws {
        let place = try await place(medium)
        var writers: [SceneRegistry] = []
        for _ in 0..<4 { writers.append(try await place.registry()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in writers {
                group.addTask {
                    let store = try await writer.store(for: "main")
                    for _ in 0..<25 { try await store.update(forKey: "count", default: 0) { $0 + 1 } }
                }
            }
            try await group.waitForAll()
        }
        for writer in writers { try await writer.close() }
        let reader = try await place.registry()
        await #expect(try reader.store(for: "main").value(forKey: "count", default: 0) == 100)
        try await reader.close()
        await place.tearDown()
    }

    /// Another registry's save and discard arrive as updates; a later set
    /// creates the scene again.
    @Test(arguments: Medium.allCases)
    func anotherWritersSaveAndDiscardArriveAsEvents(_ medium: Medium) async throws {
        let place = try await place(medium)
        let watching = try await place.registry(.init(savePolicy: .onFlush, watcher: .automatic))
        let store = try await watching.store(for: "main")
        let updates = store.updates()
        let other = try await place.registry()
        let theirs = try await other.store(for: "main")
        try theirs.set(2, forKey: "tab")
        try await theirs.flush()
        let changed = await updates.first(within: .seconds(20)) { update in
            update.changes.contains { $0.key == "tab" && $0.newValue == .int(2) && $0.origin != .local }
        }
        #expect(changed != nil, "\(medium): the other writer's set never arrived")
        try await other.discard("main")
        let discarded = await updates.first(within: .seconds(20)) { update in
            if case .discarded = update { true } else { false }
        }
        #expect(discarded != nil, "\(medium): the other writer's discard never arrived")
        #expect(store.snapshot.isEmpty)
        try store.set(7, forKey: "tab")
        try await store.flush()
        try await other.close()
        let reader = try await place.registry()
        await #expect(try reader.store(for: "main").value(forKey: "tab", default: 0) == 7)
        for registry in [watching, reader] { try await registry.close() }
        await place.tearDown()
    }

    /// A, B, A again on one key, A never hearing of B (no watcher): A's
    /// second write equals its stale view and is written all the same.
    @Test(arguments: Medium.allCases)
    func aWriteEqualToAStaleViewIsStillWritten(_ medium: Medium) async throws {
        let place = try await place(medium)
        let a = try await place.registry(.init(savePolicy: .onFlush, watcher: WatcherPreference.none))
        let b = try await place.registry(.init(savePolicy: .onFlush, watcher: WatcherPreference.none))
        let storeA = try await a.store(for: "main")
        let storeB = try await b.store(for: "main")
        for round in 0..<10 {
            try storeA.set("a", forKey: "k")
            try await storeA.flush()
            try storeB.set("b\(round)", forKey: "k")
            try await storeB.flush()
            try storeA.set("a", forKey: "k")
            try await storeA.flush()
            let reader = try await place.registry()
            await #expect(try reader.store(for: "main").value(forKey: "k", default: "") == "a", "\(medium), round \(round)")
            try await reader.close()
        }
        for registry in [a, b] { try await registry.close() }
        await place.tearDown()
    }

    /// What was flushed survives a crash; what was not is gone (saves on
    /// flush only: the default policy may save the second set before the
    /// crash).
    @Test(arguments: Medium.allCases)
    func aCrashKeepsWhatWasFlushedOnFlush(_ medium: Medium) async throws {
        let place = try await place(medium)
        let first = try await place.registry(.testing(savePolicy: .onFlush))
        let store = try await first.store(for: "main")
        try store.set(1, forKey: "flushed")
        try await store.flush()
        try store.set(2, forKey: "unflushed")
        place.crash(first)
        let relaunched = try await place.registry()
        await #expect(try relaunched.store(for: "main").snapshot == ["flushed": .int(1)])
        try await relaunched.close()
        await place.tearDown()
    }
}

extension StoragePlace {
    func tearDown() async { await fixture.tearDown() }

    /// Drops `registry` as `kill -9` would its process.
    func crash(_ registry: SceneRegistry) { registry.abandon() }
}
