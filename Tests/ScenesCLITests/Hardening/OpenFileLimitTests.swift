import Foundation
import MultiProcessSupport
import SceneStore
import SceneStoreTesting
import Testing

/// Started with too few descriptors allowed, a command says so and exits
/// 71 (EX_OSERR) before it opens anything; with 4 or 5 the runtime used to
/// trap (SIGILL) setting up its event loop.
// Hang guard: its slowest test took 6 s in its layer here, 55 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct OpenFileLimitTests {
    @Test(arguments: [4, 5, 8, 15])
    func aCommandWithTooFewDescriptorsSaysSoAndWritesNothing(_ limit: Int) async throws {
        let fixture = try await SceneStoreFixture()
        let result = try await scenes(
            ["-c", "ulimit -n \(limit) && exec \"$SCENES\" set --scene a k --int 3"], root: fixture.root, program: .shell)
        #expect(result.status == 71, "ulimit -n \(limit): \(result.status) \(result.stderr)")
        #expect(result.stderr == "scenes: the open-file limit is \(limit) (ulimit -n); it needs at least 16\n")
        #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).stdout == "")
    }

    @Test func theMinimumIsEnoughForASet() async throws {
        let fixture = try await SceneStoreFixture()
        let set = try await scenes(
            ["-c", "ulimit -n 16 && exec \"$SCENES\" set --scene a k --int 3"], root: fixture.root, program: .shell)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).stdout == "3\n")
    }
}
