import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension CrossProcessSync {
    /// A discard by one process is seen by the others: a `.discarded`
    /// update, the store is empty, its streams go on (they finish only on
    /// close), and a later write creates the scene again.
    // Hang guard: its slowest test took under 1 s here (2 cores); 1 minute, at least 4 times that.
    @Suite(.timeLimit(.minutes(1))) struct DiscardSyncTests {
        @Test func discardInAnotherProcessEmptiesTheStoreAndStreamsGoOn() async throws {
            let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
            let store = try await fixture.registry.store(for: "d")
            try store.set(1, forKey: "a")
            try store.set("two", forKey: "b")
            try await store.flush()
            let updates = store.updates()
            let values = store.values(forKey: "a", default: 0)

            let discard = try await scenes(["discard", "--scene", "d"], root: fixture.root)
            #expect(discard.status == 0, "\(discard.stderr)")

            let received = await updates.first(within: .seconds(30))
            #expect(received == .discarded(origin: .external(writerPID: nil)))
            // Latest-only buffering: the current value may be replaced by
            // the default before it is read; the stream reaches the default.
            #expect(await values.first(within: .seconds(30)) { $0 == 0 } == 0)
            #expect(store.snapshot.isEmpty)
            #expect(store.generation == 0)
            await #expect(try fixture.registry.sceneIDs().isEmpty)

            // The store stays usable: a write recreates the scene, and the
            // streams taken before the discard see it.
            let later = store.changes()
            try store.set(5, forKey: "a")
            try await store.flush()
            #expect(await later.first(within: .seconds(30)) { $0.key == "a" }?.newValue == .int(5))
            #expect(await values.first(within: .seconds(30)) { $0 == 5 } == 5)
            await #expect(try fixture.registry.sceneIDs().map(\.rawValue) == ["d"])
            let get = try await scenes(["get", "--scene", "d", "a"], root: fixture.root)
            #expect(get.status == 0 && get.stdout == "5\n")
            #expect(try await scenes(["get", "--scene", "d", "b"], root: fixture.root).status == 1)
            await fixture.tearDown()
        }

        @Test func discardHereIsSeenByWatchInAnotherProcess() async throws {
            let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
            let store = try await fixture.registry.store(for: "d")
            try store.set(1, forKey: "x")
            try await store.flush()
            let watch = try RunningScenes(["watch", "--json", "--scene", "d"], root: fixture.root)
            let log = LineLog(watch)
            #expect(await log.next(WatchEvent.self) { $0.event == "ready" } != nil)

            try await fixture.registry.discard("d")
            let discarded = try #require(await log.next(WatchEvent.self) { $0.event == "discarded" })
            #expect(discarded.origin == "external")

            // The watcher follows on after the discard: the scene, written
            // again here, shows up there.
            try store.set(2, forKey: "y")
            try await store.flush()
            let recreated = try #require(await log.next(WatchEvent.self) { $0.event == "changed" })
            #expect(recreated.key == "y" && recreated.new == .int(2) && recreated.origin == "external")
            let show = try await scenes(["show", "--json", "--scene", "d"], root: fixture.root)
            struct Dump: Decodable { let generation: UInt64; let values: [String: SceneValue] }
            let dump = try #require(decodeJSON(Dump.self, from: show.stdout))
            #expect(dump.values == ["y": .int(2)])
            #expect(dump.generation == 1, "a new incarnation starts at generation 1")
            watch.kill(SIGTERM)
            _ = await watch.exitStatus(within: .seconds(30))
            await fixture.tearDown()
        }
    }
}
