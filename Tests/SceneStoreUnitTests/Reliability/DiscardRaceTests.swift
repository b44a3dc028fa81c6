import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// Discards and quarantines seen from another process: a discard drops
/// only what was written before it, a quarantine is never taken for a
/// discard, and streams go on after a discard.
// Hang guard: its slowest test took 26 s in its layer here, 168 s in the whole suite (every test at once on 2 cores); 5 minutes.
@Suite(.timeLimit(.minutes(5))) struct DiscardRaceTests {
    static let watchers: [WatcherPreference] = [.inotify, .polling(interval: .milliseconds(40))]

    @Test(arguments: watchers)
    func aSetAfterAnotherProcessDiscardedIsKept(watcher: WatcherPreference) async throws {
        for round in 0..<10 {
            let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: watcher))
            let store = try await fixture.registry.store(for: "main")
            try store.set(1, forKey: "before")
            try await store.flush()
            let updates = store.updates()

            let other = try await fixture.otherRegistry()
            try await other.discard("main")
            // Acknowledged after the discard returned: must survive it.
            try store.set(2, forKey: "after")
            let seen = await updates.first { if case .discarded = $0 { true } else { false } }
            #expect(seen != nil, "round \(round): the discard was never seen")
            #expect(store.value(forKey: "after", default: 0) == 2, "round \(round)")
            #expect(store.value(forKey: "before", default: 0) == 0, "round \(round)")
            try await store.flush()

            let reopened = try await SceneRegistry(root: fixture.root, configuration: .testing)
            await #expect(try reopened.store(for: "main").snapshot == ["after": .int(2)], "round \(round)")
            try await reopened.close()
            await fixture.tearDown()
        }
    }

    @Test(arguments: watchers)
    func streamsGoOnAfterADiscard(watcher: WatcherPreference) async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: watcher))
        let store = try await fixture.registry.store(for: "main")
        try store.set(5, forKey: "k")
        try await store.flush()
        let values = store.values(forKey: "k", default: 0)
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == 5)

        try await fixture.otherRegistry().discard("main")
        #expect(await iterator.next() == 0)
        let writer = try await fixture.otherRegistry(configuration: .testing)
        try await writer.store(for: "main").set(9, forKey: "k")
        try await writer.store(for: "main").flush()
        #expect(await values.first(within: .seconds(30)) { $0 == 9 } == 9)
        #expect(store.value(forKey: "k", default: 0) == 9)
        await fixture.tearDown()
    }

    @Test func anotherProcessesQuarantineIsNeverTakenForADiscard() async throws {
        for round in 0..<20 {
            let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
            let a = try await fixture.registry.store(for: "main")
            let b = try await fixture.otherRegistry().store(for: "main")
            try a.set(1, forKey: "x")
            try a.set("two", forKey: "y")
            try await a.flush()
            _ = await b.values(forKey: "y", default: "").first { $0 == "two" }
            let aUpdates = a.updates()
            let bUpdates = b.updates()
            let recoveries = [a.updates(), b.updates()]

            // Something damages the file; both processes react to it.
            let garbage = fixture.directory.appendingPathComponent("garbage")
            try Data("not a scene at all".utf8).write(to: garbage)
            #expect(rename(garbage.path, fixture.root.appendingPathComponent("main.scene").path) == 0)

            // One of them moves the file to quarantine and writes the scene
            // again from memory, under one lock.
            let recovered = await withTaskGroup(of: Bool.self) { group in
                for updates in recoveries {
                    group.addTask {
                        await updates.first(within: .seconds(30)) {
                            if case .quarantined = $0 { true } else { false }
                        } != nil
                    }
                }
                for await found in group where found {
                    group.cancelAll()
                    return true
                }
                return false
            }
            #expect(recovered, "round \(round): nobody quarantined the damaged file")
            try await a.flush()
            try await b.flush()
            // A change made after the recovery is the positive signal: each
            // stream delivers in order, so a discard taken from the
            // quarantine would come before it.
            try a.set(round, forKey: "marker")
            try await a.flush()
            let expected: [String: SceneValue] = ["x": .int(1), "y": .string("two"), "marker": .int(round)]
            for (name, updates) in [("a", aUpdates), ("b", bUpdates)] {
                let first = await updates.first(within: .seconds(120)) {
                    switch $0 {
                    case .discarded: true
                    case .changed(let changes): changes.contains { $0.key == "marker" && $0.newValue == .int(round) }
                    default: false
                    }
                }
                #expect(first != nil, "round \(round): \(name) never saw the marker")
                if case .discarded? = first {
                    Issue.record("round \(round): \(name) took the quarantine for a discard")
                }
            }
            #expect(a.snapshot == expected, "round \(round)")
            #expect(b.snapshot == expected, "round \(round)")
            let reopened = try await SceneRegistry(root: fixture.root, configuration: .testing)
            await #expect(try reopened.store(for: "main").snapshot == expected, "round \(round)")
            try await reopened.close()
            await fixture.tearDown()
        }
    }
}
