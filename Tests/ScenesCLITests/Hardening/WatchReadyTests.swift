import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `scenes watch` subscribes before it says "ready": a change made while
/// the ready line is still being written is printed.
// Hang guard: its slowest test took 10 s in its layer here, 58 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct WatchReadyTests {
    @Test(arguments: [[], ["--json"]])
    func aChangeRightAfterReadyIsPrinted(format: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "w", "color", "--string", "red"], root: fixture.root).status == 0)
        // Stdout full: watch blocks writing its ready line, with the store open.
        let held = try HeldScenes.blockedOnStdout(["watch", "--scene", "w"] + format, root: fixture.root)
        #expect(await held.wait { held.isBlockedWritingStdout }, "never blocked writing its ready line")
        #expect(try await scenes(["set", "--scene", "w", "color", "--string", "blue"], root: fixture.root).status == 0)
        let output = try #require(held.readUntil(within: .seconds(30)) { $0.contains("blue") })
        #expect(output.contains("blue"), "the change was lost: \(output.suffix(300))")
        kill(held.pid, SIGTERM)
        _ = await held.release()
    }
}
