import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// Another process's small save is applied on the watcher's thread, where
/// the change is heard of; everything else goes to the store's queue.
@Suite(.timeLimit(.minutes(1))) struct WatcherReloadTests {
    private static func file(generation: UInt64, incarnation: String = "a", _ values: [String: SceneValue]) -> SceneFile {
        SceneFile(scene: "main", generation: generation, incarnation: incarnation,
                  writer: WriterIdentity(pid: 1, token: "other"), values: values)
    }

    /// The watcher reads outside the store's queue, so a discard, a save or
    /// another reload may land between its reading and its applying: then
    /// what it read (maybe the discarded file) is not applied.
    @Test func aReadingOvertakenByADiscardOrASaveIsNeverApplied() {
        let old = Self.file(generation: 3, ["k": .int(1)])
        var state = StoreState(savePolicy: .onFlush)
        state.load(old)
        let beforeDiscard = state.diskChanges
        state.discard(origin: .local)
        let afterDiscard = state.adoptIfUnchanged(old, since: beforeDiscard)
        #expect(!afterDiscard)
        #expect(state.values.isEmpty, "the discarded file came back")

        let newer = Self.file(generation: 5, incarnation: "b", ["k": .int(2)])
        let beforeSave = state.diskChanges
        state.saved([:], as: Self.file(generation: 1, incarnation: "b", [:]), over: nil)
        let afterSave = state.adoptIfUnchanged(newer, since: beforeSave)
        #expect(!afterSave)

        let unchanged = state.diskChanges
        let applied = state.adoptIfUnchanged(newer, since: unchanged)
        #expect(applied)
        #expect(state.values == ["k": .int(2)])
        let older = state.adoptIfUnchanged(Self.file(generation: 4, incarnation: "b", ["k": .int(3)]), since: state.diskChanges)
        #expect(older, "a version already passed counts as handled")
        #expect(state.values == ["k": .int(2)], "an older version was applied")

        state.close()
        let afterClose = state.adoptIfUnchanged(Self.file(generation: 9, incarnation: "b", [:]), since: state.diskChanges)
        #expect(!afterClose)
    }

    /// A store hears of its own saves too; it never takes them for another
    /// process's (they carry its writer token).
    @Test func ownSavesAreNeverTakenForAnotherProcesss() async throws {
        let fixture = try SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try fixture.registry.store(for: "main")
        let changes = store.changes()
        for round in 0..<100 {
            try store.set(round, forKey: "k\(round % 10)")
            try await store.flush()
        }
        let other = try fixture.otherRegistry().store(for: "main")
        try other.set("end", forKey: "marker")
        try await other.flush()
        let seen = await changes.prefix(101, within: .seconds(30))
        #expect(seen.count == 101)
        #expect(seen.filter { $0.origin != .local }.map(\.key) == ["marker"])
        await fixture.tearDown()
    }

    /// A file above the watcher's size limit (64 KiB) is read on the
    /// store's queue; its change arrives all the same.
    @Test(arguments: [10, 3000])
    func aChangeArrivesWhateverTheFilesSize(keys: Int) async throws {
        let fixture = try SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try fixture.registry.store(for: "main")
        for key in 0..<keys { try store.set("value \(key) of the scene", forKey: "key \(key)") }
        try await store.flush()
        var info = stat()
        #expect(stat(fixture.root.appendingPathComponent("main.json").path, &info) == 0)
        #expect((Int(info.st_size) > SceneDirectory.wholeReadBytes) == (keys > 1000))

        let values = store.values(forKey: "key 0", default: "")
        let other = try fixture.otherRegistry().store(for: "main")
        try other.set("changed", forKey: "key 0")
        try await other.flush()
        #expect(await values.first { $0 == "changed" } == "changed")
        await fixture.tearDown()
    }
}
