import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore

/// The tombstone remembers the scene's last 32 discarded incarnations,
/// across the new incarnations written between them; anything but a
/// regular file at its name remembers none (a store then writes back);
/// one that cannot be read is never taken for none.
@Suite struct TombstoneTests {
    /// A store that heard of a discard elsewhere but could not read the
    /// tombstone (EIO, the open-file limit) wrote back every value it held:
    /// a discarded value came back (found by the simulation, seed 724).
    /// Nor may the failed look move its reading on into the new
    /// incarnation: its next save then took the new file for the one it
    /// held and wrote that one back whole over it, losing what the other
    /// process saved after the discard (seeds 58, 972, 1220, 1650).
    @Test func aTombstoneThatCannotBeReadIsNotTakenForNoDiscard() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .none))
        let faults = FileFaults()
        let heard = try await SceneRegistry(
            root: fixture.root, configuration: .init(savePolicy: .onFlush, watcher: .none), system: FaultyFileSystem(faults))
        let store = try await heard.store(for: "main")
        try store.set(1, forKey: "discarded")
        try await store.flush()
        try await fixture.registry.discard("main")
        let other = try await fixture.registry.store(for: "main")
        try other.set(2, forKey: "savedAfterTheDiscard")
        try await other.flush()

        faults.inject(.error(EIO), into: .open, onlyOnPathsEndingIn: "~discarded")
        await store.reloadNow()
        faults.clear()
        let meanwhile = try await fixture.otherRegistry()
        await #expect(try meanwhile.store(for: "main").snapshot == ["savedAfterTheDiscard": .int(2)], "the discarded value was written back")
        try await meanwhile.close()

        try store.set(3, forKey: "setAfterwards")
        try await store.flush()
        #expect(store.snapshot == ["savedAfterTheDiscard": .int(2), "setAfterwards": .int(3)])
        let fresh = try await fixture.otherRegistry()
        await #expect(try fresh.store(for: "main").snapshot == ["savedAfterTheDiscard": .int(2), "setAfterwards": .int(3)])
        try await fresh.close()
        try await heard.close()
        await fixture.tearDown()
    }

    @Test func theLastDiscardsAreRememberedAcrossNewIncarnations() async throws {
        let fixture = try await SceneStoreFixture()
        let directory = SceneDirectory(root: fixture.root)
        let id = SceneID("main")
        let remembered = 32
        for index in 0...remembered {
            try directory.writeTombstone(id, incarnation: "inc-\(index)", remembered: remembered)
            _ = try directory.write(Data("new incarnation \(index)".utf8), for: id)
        }
        let names = try directory.discardedIncarnations(id)
        #expect(names.count == remembered)
        #expect(names.first == "inc-1" && names.last == "inc-\(remembered)")
        // Discarded again, an incarnation is named once, as the newest.
        try directory.writeTombstone(id, incarnation: "inc-5", remembered: remembered)
        #expect(try directory.discardedIncarnations(id).filter { $0 == "inc-5" }.count == 1)
        #expect(try directory.discardedIncarnations(id).last == "inc-5")
        await fixture.tearDown()
    }

    @Test func aTombstoneThatIsNoRegularFileNamesNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let directory = SceneDirectory(root: fixture.root)
        let id = SceneID("main")
        let path = directory.tombstonePath(id)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(try directory.discardedIncarnations(id).isEmpty)
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        #expect(try directory.discardedIncarnations(id).isEmpty, "a FIFO was read (or blocked on)")
        try FileManager.default.removeItem(atPath: path)
        let target = fixture.root.appendingPathComponent("elsewhere").path
        try Data("inc-1\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(try directory.discardedIncarnations(id).isEmpty, "a symbolic link was followed")
        await fixture.tearDown()
    }
}
