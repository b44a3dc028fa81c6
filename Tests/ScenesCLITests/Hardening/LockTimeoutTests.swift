import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `--lock-timeout`: a stopped lock holder makes `scenes set` give up,
/// name the holder and exit 75 (EX_TEMPFAIL) with nothing written.
// Hang guard: its slowest test took 10 s in its layer here, 58 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)), .enabled(if: LockHolder.isAvailable, "needs perl"))
struct LockTimeoutTests {
    @Test func setGivesUpOnAStoppedHolder() async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let file = fixture.root.appendingPathComponent("a.scene")
        let before = try Data(contentsOf: file)

        let holder = try LockHolder(scene: "a", root: fixture.root)
        defer { holder.release() }
        holder.stop()
        let result = try await scenes(["--lock-timeout", "0.5", "set", "--scene", "a", "k", "--int", "2"], root: fixture.root)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("locked by pid \(holder.pid)"), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was written"))
        #expect(result.stderr.contains("gave up after 0.5 seconds"), "the timeout asked for: \(result.stderr)")
        #expect(try Data(contentsOf: file) == before)
        #expect(treeListing(fixture.root) == [".scenestore.lock", "a.scene"])

        // After the holder lets go, the same command works.
        holder.release()
        #expect(try await scenes(["--lock-timeout", "0.5", "set", "--scene", "a", "k", "--int", "2"], root: fixture.root).status == 0)
        #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).stdout == "2\n")
    }

    /// Refused (64) with what is wrong, before or after the subcommand,
    /// as `--lock-timeout V` and `--lock-timeout=V`; `-1` is a value, not
    /// an option ("Missing value" said nothing useful).
    @Test(arguments: [
        ("-1", "--lock-timeout takes 0 to 86400 seconds, not -1"),
        ("-0.5", "--lock-timeout takes 0 to 86400 seconds, not -0.5"),
        ("nan", "--lock-timeout takes 0 to 86400 seconds, not nan"),
        ("inf", "--lock-timeout takes 0 to 86400 seconds, not inf"),
        ("100000", "--lock-timeout takes 0 to 86400 seconds, not 100000"),
        ("abc", "The value 'abc' is invalid for '--lock-timeout <seconds>'"),
    ])
    func badTimeoutsAreUsageErrors(value: String, message: String) async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("absent")
        for arguments in [
            ["--lock-timeout", value, "set", "--scene", "a", "k", "--int", "1"],
            ["set", "--scene", "a", "k", "--int", "1", "--lock-timeout", value],
            ["set", "--lock-timeout=\(value)", "--scene", "a", "k", "--int", "1"],
        ] {
            let result = try await scenes(arguments, root: root)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }
}
