import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// A store knows where its own saves leave the scene's log, so that the
/// watcher's news of them costs a few bytes read (``SceneStorage/logEnds(_:at:)``),
/// and never takes another process's save for its own.
// Hang guard: its slowest test took 9 s in its layer here, 152 s in the whole suite (every test at once on 2 cores); 4 minutes.
@Suite(.timeLimit(.minutes(4))) struct OwnRecordTests {
    /// After every save, appended or written whole (a compaction), the
    /// store's reading position is exactly where the file's log ends.
    @Test func theReadingPositionFollowsOwnAppendsAndCompactions() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try await fixture.registry.store(for: "main")
        let text = String(repeating: "v", count: 300)
        var inodes: Set<UInt64> = []
        for round in 0..<200 {
            try store.set("\(round) \(text)", forKey: "key \(round % 5)")
            try await store.flush()
            let position = store.state.withLock { $0.reader.position }
            #expect(position.map { store.storage.logEnds(store.id, at: $0) } == true, "round \(round): \(String(describing: position))")
            #expect(store.state.withLock { $0.reader.ownAppend } == nil)
            var info = stat()
            if stat(fixture.root.appendingPathComponent("main.scene").path, &info) == 0 { inodes.insert(UInt64(info.st_ino)) }
        }
        #expect(inodes.count > 2, "never compacted: \(inodes.count) inodes")
        await fixture.tearDown()
    }

    /// Another process's record after the position: the log no longer
    /// ends there, and the store reads that record.
    @Test func anotherProcesssRecordIsNeverTakenForTheStoresOwn() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try await fixture.registry.store(for: "main")
        try store.set("mine", forKey: "a")
        try await store.flush()
        let position = try #require(store.state.withLock { $0.reader.position })
        #expect(store.storage.logEnds(store.id, at: position))

        let seen = store.values(forKey: "b", default: "")
        let other = try await fixture.otherRegistry().store(for: "main")
        try other.set("theirs", forKey: "b")
        try await other.flush()
        #expect(!store.storage.logEnds(store.id, at: position))
        #expect(await seen.first(within: .seconds(30)) { $0 == "theirs" } == "theirs")
        await fixture.tearDown()
    }

    /// Two stores saving records of the same length at once, round after
    /// round: a log that ends where a store's own record would have ended
    /// may hold the other's record instead, and the store must still
    /// read it. Both end with every value of both.
    @Test(arguments: 0..<10)
    func sameLengthRecordsOfTwoStoresAreAllRead(round: Int) async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let mine = try await fixture.registry.store(for: "main")
        let theirs = try await fixture.otherRegistry().store(for: "main")
        let count = 60
        async let first: Void = Self.save(mine, tag: 1000 + round, count: count)
        async let second: Void = Self.save(theirs, tag: 2000 + round, count: count)
        _ = try await (first, second)
        // Each store's last save is on disk; the other must come to hold
        // the same: whichever saved last, both show its value.
        try mine.set("end", forKey: "marker")
        try await mine.flush()
        let marker = theirs.values(forKey: "marker", default: "")
        #expect(await marker.first(within: .seconds(30)) { $0 == "end" } == "end")
        // The marker is the last save: a store that shows it applied every record before it.
        let stored = try await fixture.otherRegistry().store(for: "main").snapshot
        #expect(mine.snapshot == stored, "round \(round)")
        #expect(theirs.snapshot == stored, "round \(round)")
        await fixture.tearDown()
    }

    /// Sets one key to values of one length (`tag` has four digits), each flushed.
    private static func save(_ store: SceneStore, tag: Int, count: Int) async throws {
        for value in 0..<count {
            try store.set("\(tag)-\(String(format: "%04d", value))", forKey: "k")
            try await store.flush()
        }
    }
}
