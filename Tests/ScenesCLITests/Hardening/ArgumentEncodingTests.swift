import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Arguments that are not UTF-8 are refused (64) before anything is
/// opened, instead of being stored with U+FFFD in place of their bytes.
/// The arguments are made by `/bin/sh` and `printf`: a Swift string cannot
/// hold them.
// Hang guard: its slowest test took 7 s in its layer here, 55 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct ArgumentEncodingTests {
    @Test(arguments: [
        (#"set --scene a k --string "$(printf '\377\376')""#, "argument 6 (after --string) is not valid UTF-8"),
        (#"set --scene a k --string="$(printf 'x\377')""#, "argument 5 (--string=...) is not valid UTF-8"),
        (#"set --scene a "$(printf 'k\377')" --int 1"#, "argument 4 is not valid UTF-8"),
        (#"set --scene "$(printf 'a\377')" k --int 1"#, "argument 3 (after --scene) is not valid UTF-8"),
        (#"get --scene a "$(printf '\300\200')""#, "argument 4 is not valid UTF-8"),
        (#"set --scene a k --url "file:///$(printf '\355\240\200')""#, "argument 6 (after --url) is not valid UTF-8"),
        (#"list --root "$(printf '/tmp/\377')""#, "argument 3 (after --root) is not valid UTF-8"),
        (#"--backend=postgres://u:S3cret"$(printf '\377')"@h/db list"#, "argument 1 (--backend=...) is not valid UTF-8"),
    ])
    func argumentThatIsNotUTF8IsAUsageError(arguments: String, message: String) async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("absent")
        let result = try await scenes(["-c", #"exec "$SCENES" "# + arguments], root: root, program: .shell)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("\u{FFFD}") && !result.stderr.contains("S3cret"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    /// UTF-8 beyond ASCII is text like any other.
    @Test func utf8IsStoredAsGiven() async throws {
        let fixture = try await SceneStoreFixture()
        let set = try await scenes(
            ["-c", #"exec "$SCENES" set --scene a "$(printf 'k\303\251')" --string "$(printf '\342\202\254 \360\237\230\200')""#],
            root: fixture.root, program: .shell)
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await scenes(["get", "--json", "--scene", "a", "k\u{E9}"], root: fixture.root)
        #expect(decodeJSON(SceneValue.self, from: get.stdout) == .string("\u{20AC} \u{1F600}"), "\(get.stdout)")
    }
}
