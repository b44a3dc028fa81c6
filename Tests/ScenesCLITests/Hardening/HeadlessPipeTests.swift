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
@Suite(.timeLimit(.minutes(2)))
struct HeadlessPipeTests {
    @Test func closedStdoutFlushesAndExits141() async throws {
        let fixture = try SceneStoreFixture()
        let process = scenesProcess(["run", "--headless", "--scene", "p"], root: fixture.root)
        // Only this process and the child hold the pipes: closing the read
        // end here is the reader going away.
        let output = try cloexecPipe()
        let input = try cloexecPipe()
        process.standardOutput = output.write
        process.standardInput = input.read
        process.standardError = FileHandle.nullDevice
        try process.run()
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
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationReason, process.terminationStatus))
            }
        }
        try? input.write.close()
        #expect(status.0 == .exit, "killed by signal \(status.1) before flushing")
        #expect(status.1 == 141)

        let get = try await scenes(["get", "--scene", "p", "tab"], root: fixture.root)
        #expect(get.stdout == "library\n", "on disk: \(get.stdout) \(get.stderr)")
    }
}
