import Foundation
import SceneStoreTesting
import Testing

/// A push the store cannot save (here: a directory where the root's lock
/// file belongs, so the push's read-modify-write cannot run) still prints
/// a state line, and it shows what the store holds: an edit the store
/// keeps pending (as when descriptors ran out) is on it, one it refused is
/// not. Before, the line was left out and the screen showed the stack
/// before the push even when the store kept the push to save later.
// Hang guard: its slowest test took 3 s in its layer here, 57 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct DemoSaveFailureTests {
    @Test func aPushThatCannotBeSavedShowsWhatTheStoreHolds() async throws {
        let fixture = try await SceneStoreFixture()
        let lock = fixture.root.appendingPathComponent(".scenestore.lock")
        try? FileManager.default.removeItem(at: lock)
        try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: true)
        let blocked = try await headless(["push 5", "push 6"], root: fixture.root)
        #expect(blocked.stderr.contains("cannot save: "), "\(blocked.stderr)")
        #expect(blocked.lines.map(\.stacks.mixed) == [[], []], "the store kept neither push")

        try FileManager.default.removeItem(at: lock)
        let next = try await headless(["push 7", "quit"], root: fixture.root)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try await headless(["show"], root: fixture.root).lines.first?.stacks.mixed == [.number(7)])
    }
}
