import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `scenes get` in its plain form is taken without the argument parser
/// (`Get.direct`): whatever it prints and exits with is what the parser's
/// way gives. The same arguments with `--` before the key are always left
/// to the parser, so each case (its key last) runs both ways and compares.
@Suite struct GetDirectTests {
    static let cases: [[String]] = [
        ["--scene", "a", "text"],
        ["--scene=a", "text"],
        ["--scene", "a", "--json", "text"],
        ["--raw", "--scene", "a", "blob"],
        ["--scene", "a", "--json", "--raw", "blob"],
        ["--scene", "a", "control"],
        ["--scene", "a", "--lock-timeout=2.5", "number"],
        ["--lock-timeout", "0", "--scene", "a", "number"],
        ["--scene", "a", "absent"],
        ["--scene", "nothing-here", "text"],
        ["--scene", "a", "--lock-timeout", "1e9", "text"],
        ["--scene", "a", "--lock-timeout", "soon", "text"],
        ["--scene", "../a", "text"],
        ["--scene", "a", "--scene", "b", "text"],
        ["--scene", "a", "--app-id", "x", "text"],
        ["--scene", "a", "--root", "", "text"],
        ["--scene", "a", String(repeating: "k", count: 257)],
    ]

    @Test(arguments: cases)
    func theDirectWayPrintsAndExitsAsTheParsersWay(_ arguments: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        for (key, value) in [("text", ["--string", "hello"]), ("number", ["--int", "-7"]), ("blob", ["--data-base64", "AAEC/w=="]),
                             ("control", ["--string", "a\u{1B}[2Jb\\c"])] {
            let set = try await scenes(["set", "--scene", "a", key] + value, root: fixture.root)
            #expect(set.status == 0, "\(set.stderr)")
        }
        let key = try #require(arguments.last)
        // `--app-id` reads under the state directory: the fixture's.
        let environment = ["XDG_STATE_HOME": fixture.directory.appendingPathComponent("state").path]
        let direct = try await scenes(["get"] + arguments, root: fixture.root, environment: environment)
        let parsed = try await scenes(["get"] + arguments.dropLast() + ["--", key], root: fixture.root, environment: environment)
        #expect(direct.status == parsed.status, "\(direct.stderr) | \(parsed.stderr)")
        #expect(direct.stdout == parsed.stdout)
        #expect(direct.stderr == parsed.stderr)
    }

    @Test func anExplicitRootIsTakenTheDirectWay() async throws {
        let fixture = try await SceneStoreFixture()
        let other = fixture.directory.appendingPathComponent("other")
        #expect(try await scenes(["set", "--root", other.path, "--scene", "a", "k", "--bool", "true"], root: fixture.root).status == 0)
        let direct = try await scenes(["get", "--root", other.path, "--scene", "a", "k"], root: fixture.root)
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(direct.stdout == "true\n")
        #expect(try await scenes(["get", "--root=\(other.path)", "--scene", "a", "k"], root: fixture.root).stdout == "true\n")
    }
}
