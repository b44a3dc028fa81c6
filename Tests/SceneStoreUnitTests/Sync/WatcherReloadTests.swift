import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// The watcher only says "this scene may have changed"; the store re-reads
/// it on its own queue.
// Ten minutes, as every suite: 100 durable saves, each an fsync that
// takes up to 2 s while the disk writes back a build.
// Hang guard: its slowest test took 9 s here (2 cores); 3 minutes, as the load step runs it several times slower.
@Suite(.timeLimit(.minutes(3))) struct WatcherReloadTests {
    /// A store hears of its own saves too; it never takes them for another
    /// process's (they carry its writer token).
    @Test func ownSavesAreNeverTakenForAnotherProcesss() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try await fixture.registry.store(for: "main")
        let changes = store.changes()
        for round in 0..<100 {
            try store.set(round, forKey: "k\(round % 10)")
            try await store.flush()
        }
        let other = try await fixture.otherRegistry().store(for: "main")
        try other.set("end", forKey: "marker")
        try await other.flush()
        let seen = await changes.prefix(101, within: .seconds(30))
        #expect(seen.count == 101)
        #expect(seen.filter { $0.origin != .local }.map(\.key) == ["marker"])
        await fixture.tearDown()
    }

    /// A small file (below 64 KiB) and a large one:
    /// a change arrives all the same.
    @Test(arguments: [10, 3000])
    func aChangeArrivesWhateverTheFilesSize(keys: Int) async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try await fixture.registry.store(for: "main")
        for key in 0..<keys { try store.set("value \(key) of the scene", forKey: "key \(key)") }
        try await store.flush()
        var info = stat()
        #expect(stat(fixture.root.appendingPathComponent("main.scene").path, &info) == 0)
        #expect((Int(info.st_size) > 64 * 1024) == (keys > 1000))

        let values = store.values(forKey: "key 0", default: "")
        let other = try await fixture.otherRegistry().store(for: "main")
        try other.set("changed", forKey: "key 0")
        try await other.flush()
        #expect(await values.first { $0 == "changed" } == "changed")
        await fixture.tearDown()
    }
}
