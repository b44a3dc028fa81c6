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
// Hang guard: its slowest test took 7 s in its layer here, 57 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct HeadlessPipeTests {
    @Test func closedStdoutFlushesAndExits141() async throws {
        let fixture = try await SceneStoreFixture()
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
        // Sent again until the child ends: a child another test spawns at
        // that moment holds a copy of every descriptor of this process
        // until its exec, the pipe's read end too, and a line written then
        // fits in the pipe without EPIPE (seen in full runs: the child then
        // waited for its next command). The command is the same each time,
        // so whichever line hits EPIPE, the scene ends on `library`.
        // A descriptor of the thread's own, closed by it when it stops.
        let stdin = fcntl(input.write.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        #expect(stdin >= 0)
        let resend = Locked(true)
        Thread.detachNewThread {
            defer { close(stdin) }
            // A write to a child that has exited raises SIGPIPE in the
            // writing thread: blocked in this one, it fails with EPIPE (the
            // pending signal goes with the thread).
            var pipe = sigset_t()
            sigemptyset(&pipe)
            sigaddset(&pipe, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipe, nil)
            let command = Array("tab library\n".utf8)
            while resend.withLock({ $0 }) {
                guard command.withUnsafeBytes({ Glibc.write(stdin, $0.baseAddress, $0.count) }) == command.count else { return }
                usleep(200_000)
            }
        }
        // Bounded, so that a child that never exits fails this test alone
        // (in a full run on 2 cores the whole test took up to 50 s).
        let end = await child.end(within: .seconds(300))
        resend.withLock { $0 = false }
        try? input.write.close()
        #expect(end == .exited(141), "\(end.map { "\($0)" } ?? "still running after 300 s (killed)")")

        let get = try await scenes(["get", "--scene", "p", "tab"], root: fixture.root)
        #expect(get.stdout == "library\n", "on disk: \(get.stdout) \(get.stderr)")
    }
}
