import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// Another process's saves, appended to the scene's log, are read as the
/// records they are: only the file's first kilobyte and what follows the
/// last record read, applied to the keys they touch. A whole write since
/// (a compaction) makes the next reading whole again; either way the
/// reader ends with what the writer has.
// Hang guard: its slowest test took 11 s in its layer here, 149 s in the whole suite (every test at once on 2 cores); 4 minutes.
@Suite(.timeLimit(.minutes(4))) struct AppendedRecordsTests {
    @Test func anotherProcesssSavesAreReadAsRecordsInALargeScene() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try await fixture.registry.store(for: "main")
        for key in 0..<3000 { try store.set("value \(key) of the scene", forKey: "key \(key)") }
        try await store.flush()
        let other = try await fixture.otherRegistry().store(for: "main")
        // One change at a time, each seen before the next: reloads that
        // coalesced would read the scene once, whole, and no record alone.
        for round in 0..<10 {
            let seen = store.values(forKey: "key \(round)", default: "")
            try other.set("changed \(round)", forKey: "key \(round)")
            try await other.flush()
            #expect(await seen.first { $0 == "changed \(round)" } == "changed \(round)")
        }
        #expect(store.snapshot == other.snapshot)
        #expect(store.state.withLock { $0.reader.recordReads } > 0, "every change was read with the whole scene")
        await fixture.tearDown()
    }

    /// Saves of both stores interleaved, past the writer's compactions:
    /// each ends with the other's values, its own records passed over.
    @Test func savesOfBothSidesAndCompactionsConverge() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .inotify))
        let store = try await fixture.registry.store(for: "main")
        let other = try await fixture.otherRegistry().store(for: "main")
        let text = String(repeating: "v", count: 200)
        var inodes: Set<UInt64> = []
        for round in 0..<150 {
            try other.set("\(round) \(text)", forKey: "theirs \(round % 7)")
            if round % 3 == 0 { other.removeValue(forKey: "theirs \((round + 3) % 7)") }
            try await other.flush()
            if round % 10 == 0 {
                try store.set(round, forKey: "mine \(round % 4)")
                try await store.flush()
            }
            var info = stat()
            if stat(fixture.root.appendingPathComponent("main.scene").path, &info) == 0 { inodes.insert(UInt64(info.st_ino)) }
        }
        try other.set("end", forKey: "marker")
        try await other.flush()
        let marker = store.values(forKey: "marker", default: "")
        #expect(await marker.first { $0 == "end" } == "end")
        let mine = other.values(forKey: "mine 0", default: -1)
        #expect(await mine.first { $0 == 140 } == 140)
        #expect(store.snapshot == other.snapshot)
        #expect(inodes.count > 2, "the file was never written whole again: \(inodes.count) inodes")
        #expect(store.state.withLock { $0.reader.recordReads } > 0)
        await fixture.tearDown()
    }
}
