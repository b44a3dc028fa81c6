import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// `update` is a read-modify-write under the scene lock: concurrent
/// increments never lose one another.
// Hang guard: its slowest test took 16 s in its layer here, 153 s in the whole suite (every test at once on 2 cores); 4 minutes.
@Suite(.timeLimit(.minutes(4))) struct UpdateTests {
    @Test func thousandTasksTimesTenIncrementsEndAtTenThousand() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    for _ in 0..<10 { try await store.update(forKey: "count", default: 0) { $0 + 1 } }
                }
            }
        }
        #expect(store.value(forKey: "count", default: 0) == 10_000)
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").value(forKey: "count", default: 0) == 10_000)
        await fixture.tearDown()
    }

    /// Two registries on one root (each as another process sees it), each
    /// with stale memory: every update starts from the other's last write.
    @Test func updatesFromTwoRegistriesNeverLoseEachOther() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(
            savePolicy: .onFlush, watcher: .polling(interval: .seconds(3600)), lockTimeout: .seconds(120)))
        let mine = try await fixture.registry.store(for: "main")
        let theirs = try await fixture.otherRegistry().store(for: "main")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in [mine, theirs] {
                group.addTask {
                    for _ in 0..<200 { try await store.update(forKey: "count", default: 0) { $0 + 1 } }
                }
            }
            try await group.waitForAll()
        }
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").value(forKey: "count", default: 0) == 400)
        await fixture.tearDown()
    }

    @Test func aValueOfAnotherKindIsATypedErrorAndStaysUntouched() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set("text", forKey: "count")
        await #expect(throws: SceneStoreError.wrongType(key: "count", stored: "string", expected: "Int")) {
            try await store.update(forKey: "count", default: 0) { $0 + 1 }
        }
        #expect(store.value(forKey: "count", as: String.self) == "text")
        await fixture.tearDown()
    }

    @Test func aThrowingTransformWritesNothingAndReturningNilRemoves() async throws {
        struct Refused: Error {}
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "n")
        try await store.flush()
        let generation = store.generation
        await #expect(throws: Refused.self) {
            try await store.update(forKey: "n", default: 0) { _ in throw Refused() }
        }
        #expect(store.generation == generation && store.value(forKey: "n", default: 0) == 1)
        let removed: Int? = try await store.update(forKey: "n", default: nil) { _ in nil }
        #expect(removed == nil && store.snapshot.isEmpty)
        let typed = SceneKey("typed", default: 10)
        #expect(try await store.update(typed) { $0 *= 2 } == 20)
        await fixture.tearDown()
    }
}

/// A local `set` made while an update's transform runs is not lost: the
/// transform runs again on the value that set made.
// Hang guard: its slowest test took 9 s in its layer here, 62 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct UpdateAndLocalSetTests {
    @Test func aSetMadeDuringAnUpdatesTransformIsNotOverwrittenByItsResult() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(["start"].joined(), forKey: "log")
        let entered = AsyncStream.makeStream(of: Void.self)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Locked(0)
        let updating = Task {
            try await store.update(forKey: "log", default: "") { log in
                if calls.withLock({ $0 += 1; return $0 }) == 1 {
                    entered.continuation.yield()
                    proceed.wait()   // the set below happens now
                }
                return log + "+update"
            }
        }
        for await _ in entered.stream { break }
        try store.set("start+set", forKey: "log")
        proceed.signal()
        _ = try await updating.value
        #expect(store.value(forKey: "log", default: "") == "start+set+update", "neither the set nor the update lost")
        #expect(calls.withLock { $0 } == 2, "the transform ran again on the value the set made")
        let relaunched = try await fixture.relaunch()
        #expect(try await relaunched.store(for: "main").value(forKey: "log", default: "") == "start+set+update")
        await fixture.tearDown()
    }
}
