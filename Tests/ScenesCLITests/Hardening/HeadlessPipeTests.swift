import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `scenes run --headless | head -c1`: the reader goes away, and what the
/// demo accepted still lands on disk.
@Suite(.timeLimit(.minutes(10)))
struct HeadlessPipeTests {
    @Test func closedStdoutFlushesAndExits141() async throws {
        let fixture = try SceneStoreFixture()
        // Only this process and the child hold the pipes: closing the read
        // end here is the reader going away.
        let output = try cloexecPipe()
        let input = try cloexecPipe()
        let child = ChildReaper(pid: try spawnChild(
            scenesExecutable.path, ["run", "--headless", "--scene", "p"],
            environment: scenesEnvironment(root: fixture.root, program: .scenes, extra: [:]),
            descriptors: (input.read.fileDescriptor, output.write.fileDescriptor, nil)))
        try output.write.close()
        try input.read.close()

        // First command: read one byte of its state line, then close the
        // pipe the way `head -c1` does.
        input.write.write(Data("tab books\n".utf8))
        // On a thread of its own: the child may take seconds to start in a
        // full run, and a blocking read here would hold one of the few
        // threads every test's tasks run on.
        let reader = output.read
        let first = try await blockingWork { try reader.read(upToCount: 1) }
        #expect(first == Data("{".utf8))
        try output.read.close()

        // Second command: accepted (saved in memory), its line hits EPIPE.
        input.write.write(Data("tab library\n".utf8))
        // Bounded, so that a child that never exits fails this test alone
        // (in a full run on 2 cores the whole test took up to 50 s).
        let end = await child.end(within: .seconds(300))
        try? input.write.close()
        #expect(end == .exited(141), "\(end.map { "\($0)" } ?? "still running after 300 s (killed)")")

        let get = try await scenes(["get", "--scene", "p", "tab"], root: fixture.root)
        #expect(get.stdout == "library\n", "on disk: \(get.stdout) \(get.stderr)")
    }
}
