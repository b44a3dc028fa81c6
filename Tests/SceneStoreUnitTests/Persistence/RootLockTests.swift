import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// A registry keeps the root's lock file open; when the root is moved
/// away or deleted and made again, its next lock is taken on the file now
/// at the path, so it excludes (and waits for) the registries that opened
/// that one, 10 rounds each.
@Suite struct RootLockTests {
    enum Loss: String, CaseIterable, Sendable {
        case movedAway, deleted
    }

    @Test(arguments: Loss.allCases)
    func aLockAfterTheRootWasReplacedIsTakenOnTheNewFile(_ loss: Loss) async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.root
        try SceneDirectory(root: root).prepare()
        let kept = SceneDirectory(root: root)
        for round in 0..<10 {
            try kept.lock(.scene("s"), timeout: .zero).unlock()  // its descriptor is open
            switch loss {
            case .movedAway:
                try FileManager.default.moveItem(at: root, to: fixture.directory.appendingPathComponent("moved-\(round)"))
            case .deleted:
                try FileManager.default.removeItem(at: root)
            }
            try SceneDirectory(root: root).prepare()
            let newcomer = SceneDirectory(root: root)
            let held = try newcomer.lock(.scene("s"), timeout: .zero)
            #expect(try kept.lockIfFree(.scene("s")) == nil, "round \(round): two holders of scene s's lock")
            held.unlock()
            let free = try kept.lockIfFree(.scene("s"))
            #expect(free != nil, "round \(round): the lock stayed taken")
            free?.unlock()
            newcomer.locks.close()
        }
        kept.locks.close()
        await fixture.tearDown()
    }
}
