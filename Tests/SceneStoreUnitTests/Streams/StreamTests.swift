import Foundation
import SceneStore
import SceneStoreTesting
import Testing

@Suite struct StreamTests {
    @Test func everySubscriberSeesEveryChangeInOrder() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let streams = (0..<8).map { _ in store.changes() }
        let count = 200
        for i in 1...count { try store.set(i, forKey: "k\(i % 3)") }

        for stream in streams {
            let seen = await stream.prefix(count)
            #expect(seen.count == count)
            #expect(seen.map(\.newValue) == (1...count).map { .int($0) })
            #expect(seen.map(\.key) == (1...count).map { "k\($0 % 3)" })
            #expect(seen.allSatisfy { $0.origin == .local })
        }
        await fixture.tearDown()
    }

    @Test func concurrentWritersStillDeliverInStateOrder() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let changes = store.changes()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for i in 0..<250 { try? store.set(i, forKey: "w\(writer)") }
                }
            }
        }
        let seen = await changes.prefix(1000)
        #expect(seen.count == 1000)
        for writer in 0..<4 {
            let values = seen.filter { $0.key == "w\(writer)" }.compactMap(\.newValue)
            #expect(values == (0..<250).map { .int($0) })
        }
        await fixture.tearDown()
    }

    @Test func valuesStreamStartsWithTheCurrentValueThenFollows() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "tab")
        let values = store.values(forKey: "tab", default: 0)
        #expect(await values.first() == 1)
        try store.set(2, forKey: "tab")
        #expect(await values.first() == 2)
        store.removeValue(forKey: "tab")
        #expect(await values.first() == 0)
        try store.set("wrong kind", forKey: "tab")
        #expect(await values.first() == 0)
        await fixture.tearDown()
    }

    @Test func valuesStreamKeepsOnlyTheLatestForASlowConsumer() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let values = store.values(forKey: "n", default: 0)
        for i in 1...1000 { try store.set(i, forKey: "n") }
        // Nothing was consumed meanwhile: only the newest value is buffered.
        #expect(await values.first() == 1000)
        await fixture.tearDown()
    }

    @Test func cancelledSubscribersAreRemoved() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        for _ in 0..<10_000 {
            let task = Task {
                for await _ in store.values(forKey: "k", default: 0) {}
            }
            task.cancel()
            await task.value
        }
        let (plain, continuation) = AsyncStream.makeStream(of: Void.self)
        continuation.finish()
        for await _ in plain {}
        #expect(store.subscriberCount == 0)
        await fixture.tearDown()
    }

    @Test func droppedStreamsAreRemovedToo() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        for _ in 0..<1000 {
            _ = store.changes()
        }
        #expect(store.subscriberCount == 0)
        await fixture.tearDown()
    }

    @Test func closeFinishesStreams() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let changes = store.changes()
        let values = store.values(forKey: "k", default: 0)
        try await fixture.registry.close()
        var changeCount = 0
        for await _ in changes { changeCount += 1 }
        var last: Int?
        for await value in values { last = value }
        #expect(changeCount == 0)
        #expect(last == 0)
        #expect(store.subscriberCount == 0)
    }

    /// A discard is an event, not an end: the store stays usable and its
    /// streams go on until it closes.
    @Test func discardSendsAnEventAndStreamsGoOnUntilClose() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        let updates = store.updates()
        try await fixture.registry.discard("main")
        try store.set(2, forKey: "k")
        try await fixture.registry.close()
        var seen: [SceneUpdate] = []
        for await update in updates { seen.append(update) }
        #expect(seen.first == .discarded(origin: .local))
        let later = seen.dropFirst().flatMap(\.changes)
        #expect(seen.count == 2 && later.map(\.key) == ["k"] && later.first?.newValue == .int(2))
        await fixture.tearDown()
    }

    /// The other registry saves on flush only, so that its four edits are one save.
    @Test func anotherProcessesSaveArrivesAsOneUpdateOnFlush() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let updates = store.updates()
        try store.set(0, forKey: "mine")
        let other = try await fixture.otherRegistry(configuration: .testing(savePolicy: .onFlush)).store(for: "main")
        try other.set(1, forKey: "x")
        try other.set(2, forKey: "y")
        other.removeValue(forKey: "x")
        try other.set(3, forKey: "z")
        try await other.flush()

        let seen = await updates.prefix(2)
        #expect(seen.first?.changes.map(\.key) == ["mine"])
        #expect(seen.first?.origin == .local)
        #expect(seen.last?.changes.map(\.key) == ["y", "z"])
        #expect(seen.last?.origin == .external(writerPID: getpid()))
        await fixture.tearDown()
    }
}
