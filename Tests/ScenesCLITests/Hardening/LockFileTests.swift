import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The scene's lock file is a hostile place too: something other than a
/// regular file at its path is refused at once (never a hang), and a lock
/// file deleted while writers run (a cleaner, `rm .*~*`) never lets two
/// writers in at once.
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
        let fixture = try SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let lock = fixture.root.appendingPathComponent(".a~lock").path
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

    /// Three writer processes set distinct keys, each flushed, while the
    /// test unlinks the lock file again and again: every acknowledged set
    /// is on disk afterwards, round after round.
    @Test func deletingTheLockFileUnderWritersLosesNothing() async throws {
        let rounds = 3
        let perWriter = 200
        var lost: [String] = []
        var deletions = 0
        for round in 0..<rounds {
            let fixture = try SceneStoreFixture()
            #expect(try await scenes(["set", "--scene", "s", "seed", "--int", "0"], root: fixture.root).status == 0)
            let lock = fixture.root.appendingPathComponent(".s~lock").path
            let stop = Locked(false)
            // On a thread of its own: a loop that sleeps must never hold
            // one of the few threads every test of this process shares.
            // The sleep paces the deletions (a fault injected over and
            // over): it waits for nothing, and any pace is a valid run.
            let remover = Task {
                try await blockingWork {
                    var removed = 0
                    while !stop.withLock({ $0 }) {
                        if unlink(lock) == 0 { removed += 1 }
                        usleep(200)
                    }
                    return removed
                }
            }
            let writers = try (0..<3).map { writer in
                try RunningScenes(
                    ["stress", "--scene", "s", "--count", "\(perWriter)", "--prefix", "r\(round)w\(writer)-"] + contendedWriter,
                    root: fixture.root, program: .lab)
            }
            for writer in writers {
                #expect(await writer.exitStatus(within: .seconds(180)) == 0)
            }
            stop.withLock { $0 = true }
            deletions += try await remover.value
            var configuration = SceneRegistry.Configuration.testing
            configuration.watcher = .none
            let registry = try SceneRegistry(root: fixture.root, configuration: configuration)
            let values = try await registry.store(for: "s").snapshot
            for writer in 0..<3 {
                for index in 0..<perWriter where values["r\(round)w\(writer)-\(index)"] != .int(index) {
                    lost.append("r\(round)w\(writer)-\(index)")
                }
            }
            try await registry.close()
            await fixture.tearDown()
        }
        #expect(deletions > 0, "the lock file was never deleted")
        #expect(lost.count == 0, "lost \(lost.count): \(lost.prefix(10))")
        print("lock file deleted \(deletions) times under 3 writers x \(perWriter) x \(rounds) rounds: lost \(lost.count) of \(3 * perWriter * rounds)")
    }
}
}

extension CrossProcessSync.LockFileTests {
    /// Processes that find no lock file at once all create one: exactly one
    /// links its file into place, the others lock that one, and nobody
    /// waits for a creator that lost the race (each round on a fresh root).
    /// A livelock or a wait for a lock nobody will release hits the lock
    /// timeout; it is a minute (`contendedWriter`), so that it is only a
    /// hang guard: six writers flushing each write may wait seconds for the
    /// lock on a loaded disk, and that is slowness, not the bug.
    @Test func manyProcessesCreatingTheLockFileAtOnceAllGetIn() async throws {
        for round in 0..<5 {
            let fixture = try SceneStoreFixture()
            try FileManager.default.createDirectory(at: fixture.root, withIntermediateDirectories: true)
            let writers = try (0..<6).map { writer in
                try RunningScenes(
                    ["stress", "--scene", "s", "--count", "20", "--prefix", "w\(writer)-"] + contendedWriter,
                    root: fixture.root, program: .lab)
            }
            for (index, writer) in writers.enumerated() {
                #expect(await writer.exitStatus(within: .seconds(300)) == 0, "round \(round), writer \(index): \(writer.errorOutput.suffix(500))")
            }
            let registry = try SceneRegistry(root: fixture.root, configuration: .testing)
            await #expect(try registry.store(for: "s").snapshot.count == 120, "round \(round)")
            try await registry.close()
            await fixture.tearDown()
        }
    }
}
