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
///
/// The child is started with ``spawnChild(_:_:environment:descriptors:workingDirectory:searchPath:)``,
/// not `Foundation.Process`: a child another test starts at the same moment
/// must not keep a copy of this one's pipes or of the socket `Process`
/// learns an exit from (a fresh-clone run waited here for 120 s).
@Suite(.timeLimit(.minutes(2)))
struct HeadlessPipeTests {
    @Test func closedStdoutFlushesAndExits141() async throws {
        let fixture = try SceneStoreFixture()
        // Only this process and the child hold the pipes: closing the read
        // end here is the reader going away.
        let output = try cloexecPipe()
        let input = try cloexecPipe()
        var environment = ProcessInfo.processInfo.environment
        environment["SCENES_ROOT"] = fixture.root.path
        let pid = try spawnChild(
            scenesExecutable.path, ["run", "--headless", "--scene", "p"], environment: environment,
            descriptors: (stdin: input.read.fileDescriptor, stdout: output.write.fileDescriptor, stderr: nil))
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
        let status = await withCheckedContinuation { continuation in
            Thread.detachNewThread {  // not a global queue: see RunningScenes.exitStatus()
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        try? input.write.close()
        // WIFEXITED and WEXITSTATUS: an exit, not a death by SIGPIPE (which
        // a shell would also report as 141).
        #expect(status & 0x7F == 0, "killed by signal \(status & 0x7F) before flushing")
        #expect((status >> 8) & 0xFF == 141)

        let get = try await scenes(["get", "--scene", "p", "tab"], root: fixture.root)
        #expect(get.stdout == "library\n", "on disk: \(get.stdout) \(get.stderr)")
    }
}
