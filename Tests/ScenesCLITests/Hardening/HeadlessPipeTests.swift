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
        let first = try output.read.read(upToCount: 1)
        #expect(first == Data("{".utf8))
        try output.read.close()

        // Second command: accepted (saved in memory), its line hits EPIPE.
        input.write.write(Data("tab library\n".utf8))
        let end = await child.end(within: .seconds(60))
        try? input.write.close()
        #expect(end == .exited(141), "\(end.map { "\($0)" } ?? "still running after 60 s (killed)")")

        let get = try await scenes(["get", "--scene", "p", "tab"], root: fixture.root)
        #expect(get.stdout == "library\n", "on disk: \(get.stdout) \(get.stderr)")
    }
}
