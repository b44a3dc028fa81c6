import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The root's lock file is a hostile place too: something other than a
/// regular file at its path is refused at once (never a hang), and
/// processes that all find it missing make one file that every one locks.
/// (Deleting it while processes run is misuse, as deleting SQLite's hot
/// journal is: the library never does.)
/// Part of the serialized cross-process checks: they launch many
/// processes, and together with the others they would crowd the start of
/// the suite on a 2-core machine.
extension CrossProcessSync {
// Hang guard: its slowest test took 60 s here (2 cores); 5 minutes, at least 4 times that.
@Suite(.timeLimit(.minutes(5)))
struct LockFileTests {
    /// A FIFO would block `open` forever, whatever `--lock-timeout` says;
    /// a directory could be locked but is not ours.
    @Test(arguments: ["fifo", "directory"])
    func somethingElseAtTheLockPathIsRefusedAtOnce(_ kind: String) async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let lock = fixture.root.appendingPathComponent(".scenestore.lock").path
        #expect(unlink(lock) == 0)
        if kind == "fifo" {
            #expect(mkfifo(lock, 0o600) == 0)
        } else {
            #expect(mkdir(lock, 0o700) == 0)
        }
        let result = try await scenes(["--lock-timeout", "2", "set", "--scene", "a", "k", "--int", "2"], root: fixture.root)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("is a \(kind == "fifo" ? "FIFO" : "directory"), not a regular file"), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was written"))
        // What was stored stays, and reading needs no lock.
        #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).stdout == "1\n")
        await fixture.tearDown()
    }
}
}

extension CrossProcessSync.LockFileTests {
    /// Processes that find no lock file at once all create it (`O_CREAT`
    /// makes one file, whoever comes first) and lock that one: nobody
    /// loses a write or waits for nothing (each round on a fresh root).
    /// A livelock or a wait for a lock nobody will release hits the lock
    /// timeout; it is a minute (`contendedWriter`), so that it is only a
    /// hang guard: six writers flushing each write may wait seconds for the
    /// lock on a loaded disk, and that is slowness, not the bug.
    @Test func manyProcessesCreatingTheLockFileAtOnceAllGetIn() async throws {
        for round in 0..<5 {
            let fixture = try await SceneStoreFixture()
            try FileManager.default.createDirectory(at: fixture.root, withIntermediateDirectories: true)
            let writers = try (0..<6).map { writer in
                try RunningScenes(
                    ["stress", "--scene", "s", "--count", "20", "--prefix", "w\(writer)-"] + contendedWriter,
                    root: fixture.root, program: .lab)
            }
            for (index, writer) in writers.enumerated() {
                #expect(await writer.exitStatus(within: .seconds(300)) == 0, "round \(round), writer \(index): \(writer.errorOutput.suffix(500))")
            }
            let registry = try await SceneRegistry(root: fixture.root, configuration: .testing)
            await #expect(try registry.store(for: "s").snapshot.count == 120, "round \(round)")
            try await registry.close()
            await fixture.tearDown()
        }
    }
}
