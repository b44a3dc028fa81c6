import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// The storage contract in one process, where registries stand in for
/// processes: on memory (SceneStoreTesting's `InMemoryScenes`, what apps
/// use in their own tests), on the file root and on PostgreSQL. Whatever
/// holds on one holds on the others.
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

    /// Where one test's scenes live: memory, or a fresh root or database;
    /// ``registry(_:)`` opens another "process" on them.
    enum Place: Sendable {
        case memory(InMemoryScenes)
        case stored(StoragePlace)

        func registry(_ configuration: SceneRegistry.Configuration = .testing) throws -> SceneRegistry {
            switch self {
            case .memory(let scenes): SceneRegistry(inMemory: scenes, configuration: configuration)
            case .stored(let place): try place.registry(configuration)
            }
        }

        /// Drops `registry` as `kill -9` would its process.
        func crash(_ registry: SceneRegistry) {
            switch self {
            case .memory(let scenes): scenes.crash(registry)
            case .stored: registry.abandon()
            }
        }

        func tearDown() async {
            if case .stored(let place) = self { await place.fixture.tearDown() }
        }
    }

    func place(_ medium: Medium) async throws -> Place {
        switch medium {
        case .memory: .memory(InMemoryScenes())
        case .files: .stored(try await StoragePlace.make(.files))
        case .postgres: .stored(try await StoragePlace.make(.postgres))
        }
    }

    /// 4 registries set distinct keys at once; a fresh one sees every key.
    @Test(arguments: Medium.allCases)
    func distinctKeysFromFourWritersAreAllKept(_ medium: Medium) async throws {
        let place = try await place(medium)
        let writers = try (0..<4).map { _ in try place.registry() }
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
        let reader = try place.registry()
        await #expect(try reader.store(for: "main").snapshot.count == 100)
        try await reader.close()
        await place.tearDown()
    }

    /// 4 registries increment one key 25 times each: 100, none lost.
    @Test(arguments: Medium.allCases)
    func updatesFromFourWritersLoseNone(_ medium: Medium) async throws {
        let place = try await place(medium)
        let writers = try (0..<4).map { _ in try place.registry() }
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
        let reader = try place.registry()
        await #expect(try reader.store(for: "main").value(forKey: "count", default: 0) == 100)
        try await reader.close()
        await place.tearDown()
    }

    /// Another registry's save and discard arrive as events; a later set
    /// creates the scene again.
    @Test(arguments: Medium.allCases)
    func anotherWritersSaveAndDiscardArriveAsEvents(_ medium: Medium) async throws {
        let place = try await place(medium)
        let watching = try place.registry(.init(savePolicy: .onFlush, watcher: .automatic))
        let store = try await watching.store(for: "main")
        let events = store.events()
        let other = try place.registry()
        let theirs = try await other.store(for: "main")
        try theirs.set(2, forKey: "tab")
        try await theirs.flush()
        let changed = await events.first(within: .seconds(20)) { event in
            if case .changed(let change) = event { change.key == "tab" && change.newValue == .int(2) && change.origin != .local } else { false }
        }
        #expect(changed != nil, "\(medium): the other writer's set never arrived")
        try await other.discard("main")
        let discarded = await events.first(within: .seconds(20)) { event in
            if case .discarded = event { true } else { false }
        }
        #expect(discarded != nil, "\(medium): the other writer's discard never arrived")
        #expect(store.snapshot.isEmpty)
        try store.set(7, forKey: "tab")
        try await store.flush()
        try await other.close()
        let reader = try place.registry()
        await #expect(try reader.store(for: "main").value(forKey: "tab", default: 0) == 7)
        for registry in [watching, reader] { try await registry.close() }
        await place.tearDown()
    }

    /// A, B, A again on one key, A never hearing of B (no watcher): A's
    /// second write equals its stale view and is written all the same.
    @Test(arguments: Medium.allCases)
    func aWriteEqualToAStaleViewIsStillWritten(_ medium: Medium) async throws {
        let place = try await place(medium)
        let a = try place.registry(.init(savePolicy: .onFlush, watcher: FileWatcherPreference.none))
        let b = try place.registry(.init(savePolicy: .onFlush, watcher: FileWatcherPreference.none))
        let storeA = try await a.store(for: "main")
        let storeB = try await b.store(for: "main")
        for round in 0..<10 {
            try storeA.set("a", forKey: "k")
            try await storeA.flush()
            try storeB.set("b\(round)", forKey: "k")
            try await storeB.flush()
            try storeA.set("a", forKey: "k")
            try await storeA.flush()
            let reader = try place.registry()
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
        let first = try place.registry(.testing(savePolicy: .onFlush))
        let store = try await first.store(for: "main")
        try store.set(1, forKey: "flushed")
        try await store.flush()
        try store.set(2, forKey: "unflushed")
        place.crash(first)
        let relaunched = try place.registry()
        await #expect(try relaunched.store(for: "main").snapshot == ["flushed": .int(1)])
        try await relaunched.close()
        await place.tearDown()
    }
}

/// What only memory lets a test do by hand: damage and delete a document.
// Hang guard: its slowest test took 2 s in its layer here, 62 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct InMemoryScenesTests {
    /// A damaged document is moved aside and the open store writes the
    /// scene again from its memory; a reopened one starts from that.
    @Test func aDamagedDocumentIsQuarantinedAndWrittenAgain() async throws {
        let scenes = InMemoryScenes()
        let registry = scenes.registry(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
        let store = try await registry.store(for: "main")
        let events = store.events()
        try store.set(5, forKey: "tab")
        try await store.flush()
        let main = try SceneID("main")
        scenes.replaceDocument(of: main, with: Data("not a scene".utf8))
        let recovered = await events.first(within: .seconds(20)) { event in
            if case .recovered = event { true } else { false }
        }
        #expect(recovered != nil)
        #expect(scenes.quarantined(main) == [Data("not a scene".utf8)])
        try await registry.close()
        let reopened = scenes.registry()
        await #expect(try reopened.store(for: "main").value(forKey: "tab", default: 0) == 5)
        #expect(reopened.location == .memory("scenes"))
        try await reopened.close()
    }

    /// A document deleted by hand (no tombstone) is written again by the
    /// store that holds it.
    @Test func aVanishedDocumentIsWrittenAgainFromMemory() async throws {
        let scenes = InMemoryScenes()
        let registry = scenes.registry(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
        let store = try await registry.store(for: "main")
        try store.set("kept", forKey: "title")
        try await store.flush()
        let main = try SceneID("main")
        scenes.replaceDocument(of: main, with: nil)
        var restored = false
        for _ in 0..<2000 where !restored {
            restored = scenes.document(of: main) != nil
            if !restored { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(restored, "the vanished document was not written again")
        try await registry.close()
        await #expect(try scenes.registry().store(for: "main").value(forKey: "title", default: "") == "kept")
    }
}
