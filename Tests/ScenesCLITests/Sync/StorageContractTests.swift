import Foundation
import SceneStore
#if Postgres
import SceneStorePostgres
#endif
import MultiProcessSupport
import SceneStoreTesting
import Testing

/// The same contract, run against both storages, by real processes: the
/// file root, and PostgreSQL (a server of the suite's own, on loopback).
/// Each test gets a fresh root or a fresh database.
// Hang guard: its slowest test took 27 s in its layer here, 118 s in the whole suite (every test at once on 2 cores); 3 minutes.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct StorageContractTests {
    typealias Backend = StorageBackend
    typealias Place = StoragePlace

    func place(_ backend: Backend) async throws -> StoragePlace {
        try await StoragePlace.make(backend)
    }

    /// 4 x 200 durable saves: on files the same check runs at 4 x 500 with
    /// inotify and with polling (`LostUpdateTests`); here it is the
    /// contract every storage keeps, and in the full suite, beside the soak
    /// tests, its 2000 files saves were the suite's longest test (203 s).
    @Test(arguments: Backend.allCases)
    func fourProcessesWritingDistinctKeysLoseNone(_ backend: Backend) async throws {
        let place = try await place(backend)
        let perWriter = 200
        try await place.runWriters { writer in
            ["stress", "--scene", "shared", "--count", "\(perWriter)", "--prefix", "w\(writer)-"] + contendedWriter
        }
        let registry = try await place.registry(.init(watcher: .none))
        let store = try await registry.store(for: "shared")
        let values = store.snapshot
        #expect(values.count == 4 * perWriter)
        #expect(store.generation == UInt64(4 * perWriter), "one save per flush, none skipped")
        let missing = (0..<4).flatMap { writer in
            (0..<perWriter).compactMap { index in values["w\(writer)-\(index)"] == .int(index) ? nil : "w\(writer)-\(index)" }
        }
        #expect(missing.isEmpty, "lost: \(missing.prefix(10))")
        print("storage contract, \(backend): 4 processes x \(perWriter) keys -> \(values.count) keys, generation \(store.generation)")
        try await registry.close()
        await place.fixture.tearDown()
    }

    @Test(arguments: Backend.allCases)
    func fourProcessesIncrementingOneKeyEndAtThousand(_ backend: Backend) async throws {
        let place = try await place(backend)
        try await place.runWriters { _ in ["stress", "--scene", "c", "--increment", "count", "--count", "250"] + contendedWriter }
        let registry = try await place.registry(.init(watcher: .none))
        let count = try await registry.store(for: "c").value(forKey: "count", as: Int.self)
        #expect(count == 1000)
        print("storage contract, \(backend): 4 processes x 250 updates -> \(count.map(String.init) ?? "nothing")")
        try await registry.close()
        await place.fixture.tearDown()
    }

    @Test(arguments: Backend.allCases)
    func twoDemoWindowsMirrorEachOther(_ backend: Backend) async throws {
        let place = try await place(backend)
        let (left, right) = try await twoDemoWindows(root: place.fixture.root, arguments: place.arguments)
        for value in [41, 42] {
            left.send("push \(value)")
            let mirrored = await right.lines.first(within: .seconds(20)) { line in
                DemoLine(line).map { $0.origin == "external" && $0.stacks.mixed.last == .number(value) } ?? false
            }
            #expect(mirrored != nil, "\(backend): the other window never showed \(value)")
        }
        left.send("quit")
        right.send("quit")
        #expect(await left.exitStatus() == 0)
        #expect(await right.exitStatus() == 0)
        await place.fixture.tearDown()
    }

    /// A, B, A again on one key: A's third write equals what A last saw,
    /// not what the storage holds (B's write, which A never heard of: no
    /// watcher). It is written all the same, and so is a remove of a key A
    /// has not seen. B is a real `scenes` process.
    @Test(arguments: Backend.allCases)
    func aWriteEqualToAStaleViewIsStillWritten(_ backend: Backend) async throws {
        let place = try await place(backend)
        let registry = try await place.registry(.init(savePolicy: .onFlush, watcher: .none))
        let a = try await registry.store(for: "main")
        var lost: [String] = []
        for round in 0..<10 {
            try a.set("a\(round)", forKey: "k")
            try await a.flush()
            let b = try await scenes(["set", "--scene", "main", "k", "--string", "b\(round)"] + place.arguments, root: place.fixture.root)
            #expect(b.status == 0, "\(b.stderr)")
            try a.set("a\(round)", forKey: "k")
            try await a.flush()
            let afterSet = try await scenes(["get", "--scene", "main", "k"] + place.arguments, root: place.fixture.root)
            if afterSet.stdout.trimmingCharacters(in: .newlines) != "a\(round)" { lost.append("set \(round)") }

            let c = try await scenes(["set", "--scene", "main", "other", "--int", "\(round)"] + place.arguments, root: place.fixture.root)
            #expect(c.status == 0, "\(c.stderr)")
            a.removeValue(forKey: "other")
            try await a.flush()
            let afterRemove = try await scenes(["get", "--scene", "main", "other"] + place.arguments, root: place.fixture.root)
            if afterRemove.status == 0 { lost.append("remove \(round)") }
        }
        #expect(lost.isEmpty, "\(backend): lost \(lost)")
        print("storage contract, \(backend): stale-view writes lost \(lost.count) of 20")
        try await registry.close()
        await place.fixture.tearDown()
    }

    @Test(arguments: Backend.allCases)
    func anotherProcessesWritesAndDiscardArriveAsEvents(_ backend: Backend) async throws {
        let place = try await place(backend)
        let registry = try await place.registry()
        let store = try await registry.store(for: "main")
        let updates = store.updates()
        #expect(try await scenes(["set", "--scene", "main", "tab", "--int", "2"] + place.arguments, root: place.fixture.root).status == 0)
        let changed = await updates.first(within: .seconds(20)) { update in
            update.changes.contains { $0.key == "tab" && $0.newValue == .int(2) }
        }
        #expect(changed != nil, "the other process's set never arrived")
        #expect(store.value(forKey: "tab", default: 0) == 2)

        #expect(try await scenes(["discard", "--scene", "main"] + place.arguments, root: place.fixture.root).status == 0)
        let discarded = await updates.first(within: .seconds(20)) { update in
            if case .discarded = update { true } else { false }
        }
        #expect(discarded != nil, "the other process's discard never arrived")
        #expect(store.snapshot.isEmpty)

        // The store goes on: a later set creates the scene again, for everyone.
        try store.set(7, forKey: "tab")
        try await store.flush()
        let read = try await scenes(["get", "--scene", "main", "tab"] + place.arguments, root: place.fixture.root)
        #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "7")
        try await registry.close()
        await place.fixture.tearDown()
    }
}

#if Postgres
/// What a database that cannot be used looks like from the command line:
/// a typed error and an exit status at once, never a hang.
// Hang guard: its slowest test took 12 s in its layer here, 54 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct DatabaseLocationTests {
    @Test(arguments: ["mysql://db/x", "postgres://", "postgres://host:notaport/db", "not a url"])
    func aURLThatCannotBeUsedExits64(_ url: String) async throws {
        let fixture = try await SceneStoreFixture()
        let result = try await scenes(["--backend", url, "get", "--scene", "a", "k"], root: fixture.root)
        #expect(result.status == 64, "\(url): \(result.stderr)")
        #expect(result.stderr.contains("invalid scene storage"))
    }

    @Test func aServerThatDoesNotAnswerExits69AtOnce() async throws {
        let fixture = try await SceneStoreFixture()
        let url = "postgres://nobody@127.0.0.1:\(try TemporaryPostgresServer.freePort())/x"
        let started = ContinuousClock.now
        let result = try await scenes(["--backend", url, "set", "--scene", "a", "k", "--int", "1"], root: fixture.root)
        let took = ContinuousClock.now - started
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("is unavailable"))
        print("a closed port: exit \(result.status) after \(took)")
    }
}
#endif

extension StoragePlace {
    /// Runs 4 `scenes-lab` processes at once, each with `arguments(index)`
    /// on this place, and waits for each to succeed. The bound is for a
    /// hang only: in the full suite, beside the soak tests, the 2000
    /// durable saves of the distinct-keys test took 150 s on a CI machine.
    func runWriters(_ arguments: (Int) -> [String]) async throws {
        let writers = try (0..<4).map { writer in
            try RunningScenes(arguments(writer) + self.arguments, root: fixture.root, program: .lab)
        }
        let deadline = ContinuousClock.now + .seconds(480)
        for (index, writer) in writers.enumerated() {
            let status = await writer.exitStatus(within: max(deadline - .now, .seconds(1)))
            #expect(status == 0, "writer \(index): \(status.map { "exit \($0)" } ?? "still running after 480 s"): \(writer.errorOutput.suffix(500))")
        }
    }
}
