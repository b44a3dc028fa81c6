import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore

/// The tombstone remembers the scene's last 32 discarded incarnations,
/// across the new incarnations written between them; anything but a
/// regular file at its name remembers none (a store then writes back).
@Suite struct TombstoneTests {
    @Test func theLastDiscardsAreRememberedAcrossNewIncarnations() async throws {
        let fixture = try await SceneStoreFixture()
        let directory = SceneDirectory(root: fixture.root)
        let id = SceneID("main")
        let remembered = 32
        for index in 0...remembered {
            try directory.writeTombstone(id, incarnation: "inc-\(index)", remembered: remembered)
            _ = try directory.write(Data("new incarnation \(index)".utf8), for: id)
        }
        let names = directory.discardedIncarnations(id)
        #expect(names.count == remembered)
        #expect(names.first == "inc-1" && names.last == "inc-\(remembered)")
        // Discarded again, an incarnation is named once, as the newest.
        try directory.writeTombstone(id, incarnation: "inc-5", remembered: remembered)
        #expect(directory.discardedIncarnations(id).filter { $0 == "inc-5" }.count == 1)
        #expect(directory.discardedIncarnations(id).last == "inc-5")
        await fixture.tearDown()
    }

    @Test func aTombstoneThatIsNoRegularFileNamesNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let directory = SceneDirectory(root: fixture.root)
        let id = SceneID("main")
        let path = directory.tombstonePath(id)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(directory.discardedIncarnations(id).isEmpty)
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        #expect(directory.discardedIncarnations(id).isEmpty, "a FIFO was read (or blocked on)")
        try FileManager.default.removeItem(atPath: path)
        let target = fixture.root.appendingPathComponent("elsewhere").path
        try Data("inc-1\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(directory.discardedIncarnations(id).isEmpty, "a symbolic link was followed")
        await fixture.tearDown()
    }
}
