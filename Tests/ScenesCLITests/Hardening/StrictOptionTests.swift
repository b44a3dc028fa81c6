import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Options take what their help says and nothing looser: `set --bool`
/// exactly `true` or `false`, `prune --older-than` an unsigned count of
/// digits and a unit.
// Hang guard: its slowest test took 16 s here (2 cores); 2 minutes, at least 4 times that.
@Suite(.timeLimit(.minutes(2)))
struct StrictOptionTests {
    @Test func boolTakesExactlyTrueOrFalse() async throws {
        let fixture = try await SceneStoreFixture()
        for text in ["TRUE", "True", "FALSE", "1", "0", "yes", "no", "t", "", " true", "true "] {
            let result = try await scenes(["set", "--scene", "a", "k", "--bool", text], root: fixture.root)
            #expect(result.status == 64, "--bool \(text.debugDescription) was accepted")
            #expect(result.stderr.contains("--bool takes true or false, not \(text.debugDescription)"), "\(result.stderr)")
        }
        for (text, value) in [("true", true), ("false", false)] {
            #expect(try await scenes(["set", "--scene", "a", "k", "--bool", text], root: fixture.root).status == 0)
            #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).stdout == "\(value)\n")
        }
    }

    @Test func olderThanTakesOnlyAnUnsignedCount() async throws {
        let fixture = try await SceneStoreFixture()
        for text in ["+5s", "-0s", "-5s", "+0d", " 5s", "5 s", "0x5s", "5_0s", "s", "5", "5w", "\u{0661}s"] {
            let result = try await scenes(["prune", "--older-than=" + text], root: fixture.root)
            #expect(result.status == 64, "--older-than \(text.debugDescription) was accepted")
            #expect(result.stderr.contains("--older-than takes a number and s, m, h or d"), "\(result.stderr)")
        }
        for text in ["0s", "90s", "30m", "12h", "30d", "007s"] {
            let result = try await scenes(["prune", "--older-than", text], root: fixture.root)
            #expect(result.status == 0, "--older-than \(text): \(result.stderr)")
        }
    }

    /// A scene id may start with a dash: `--scene -x` takes it as the id,
    /// as `--scene=-x` did.
    @Test func sceneTakesAnIDThatStartsWithADash() async throws {
        let fixture = try await SceneStoreFixture()
        let set = try await scenes(["set", "--scene", "-x", "k", "--int", "1"], root: fixture.root)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await scenes(["get", "--scene", "-x", "k"], root: fixture.root).stdout == "1\n")
        #expect(try await scenes(["show", "--scene", "-x"], root: fixture.root).status == 0)
        #expect(try await scenes(["get", "--scene=-x", "k"], root: fixture.root).stdout == "1\n")
    }
}
