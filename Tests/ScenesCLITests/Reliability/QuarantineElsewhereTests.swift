import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Whatever ended the file a live store holds, short of a discard of it,
/// the store never lets go of what it acknowledged. Before, when a
/// `scenes set` found the file damaged, quarantined it and wrote a new one
/// holding its own key, the store that held the scene adopted that file:
/// every acknowledged key gone from its memory and from disk, in 10 of 10
/// rounds. The store has no watcher here, so it meets the new file at its
/// next save, after the other process is done: one order, every round.
// Hang guard: 10 rounds take about 3 s here (2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct QuarantineElsewhereTests {
    static let configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none)

    @Test func aStoreWritesBackWhatAnotherProcesssQuarantineTookFromIt() async throws {
        var kept = 0
        for round in 0..<10 {
            let fixture = try await SceneStoreFixture(configuration: Self.configuration)
            let store = try await fixture.registry.store(for: "main")
            try store.set("a", forKey: "a")
            try store.set(round, forKey: "b")
            try await store.flush()
            try Data("damaged by the disk".utf8).write(to: fixture.root.appendingPathComponent("main.scene"))

            let set = try await scenes(["set", "--scene", "main", "other", "--int", "1"], root: fixture.root)
            #expect(set.status == 0, "\(set.stderr)")
            let quarantine = fixture.root.appendingPathComponent("quarantine").path
            #expect(try FileManager.default.contentsOfDirectory(atPath: quarantine).count == 1)

            try store.set("c", forKey: "c")
            try await store.flush()
            let expected: [String: SceneValue] = ["a": .string("a"), "b": .int(round), "c": .string("c"), "other": .int(1)]
            let relaunched = try await fixture.relaunch().store(for: "main")
            if store.snapshot == expected && relaunched.snapshot == expected { kept += 1 }
            #expect(relaunched.snapshot == expected, "round \(round)")
            await fixture.tearDown()
        }
        print("quarantine elsewhere: \(kept) of 10 rounds kept every acknowledged key")
        #expect(kept == 10)
    }

    /// The twin: a discard of the scene by another process is not undone.
    /// The store keeps only what it had not saved yet (`c`), over the new
    /// scene written after the discard.
    @Test func aDiscardElsewhereIsNotUndoneByTheStoreThatHeldTheScene() async throws {
        for round in 0..<10 {
            let fixture = try await SceneStoreFixture(configuration: Self.configuration)
            let store = try await fixture.registry.store(for: "main")
            try store.set("a", forKey: "a")
            try await store.flush()

            #expect(try await scenes(["discard", "--scene", "main"], root: fixture.root).status == 0)
            #expect(try await scenes(["set", "--scene", "main", "other", "--int", "1"], root: fixture.root).status == 0)

            try store.set("c", forKey: "c")
            try await store.flush()
            let expected: [String: SceneValue] = ["c": .string("c"), "other": .int(1)]
            #expect(store.snapshot == expected, "round \(round)")
            #expect(try await fixture.relaunch().store(for: "main").snapshot == expected, "round \(round)")
            await fixture.tearDown()
        }
    }
}
