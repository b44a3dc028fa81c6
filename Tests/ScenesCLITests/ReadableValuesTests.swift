import Foundation
import SceneStore
import ScenesCLIKit
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `show`, `get` and `watch` print a stored model and a navigation path as
/// the JSON they are stored as; `--raw` keeps base64, the form `set` takes.
// Hang guard: its slowest test took 13 s in its layer here, 64 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct ReadableValuesTests {
    static let model = #"{"format":"scenestore.model","tag":"layout","value":{"columns":2},"version":1}"#

    @Test func aStoredModelPrintsAsItsJSON() async throws {
        let fixture = try await SceneStoreFixture()
        let base64 = Data(Self.model.utf8).base64EncodedString()
        #expect(try await scenes(["set", "--scene", "a", "layout", "--data-base64", base64], root: fixture.root).status == 0)
        #expect(try await scenes(["set", "--scene", "a", "bytes", "--data-base64", "AAEC/w=="], root: fixture.root).status == 0)

        let get = try await scenes(["get", "--scene", "a", "layout"], root: fixture.root)
        #expect(get.stdout == Self.model + "\n")
        #expect(try await scenes(["get", "--scene", "a", "layout", "--raw"], root: fixture.root).stdout == base64 + "\n")
        #expect(try await scenes(["get", "--scene", "a", "bytes"], root: fixture.root).stdout == "AAEC/w==\n", "other bytes stay base64")

        let show = try await scenes(["show", "--scene", "a"], root: fixture.root).stdout
        #expect(show.contains("scene a (generation 2, 2 keys)"))
        #expect(show.contains(Self.model))
        let raw = try await scenes(["show", "--scene", "a", "--raw"], root: fixture.root).stdout
        #expect(raw.contains(base64) && !raw.contains(Self.model))
        #expect(try await scenes(["set", "--scene", "b", "k", "--int", "1"], root: fixture.root).status == 0)
        #expect(try await scenes(["show", "--scene", "b"], root: fixture.root).stdout.hasPrefix("scene b (generation 1, 1 key)\n"))
    }

    @Test func aNavigationPathPrintsAsItsJSON() async throws {
        let fixture = try await SceneStoreFixture()
        _ = try await scenes(["run", "--scene", "main", "--headless"], root: fixture.root, stdin: "push 3\npush three\nback\nquit\n")
        let path = try await scenes(["get", "--scene", "main", "mixed.path"], root: fixture.root).stdout
        #expect(path.hasPrefix(#"{"elements":[{"tag":"int","value":3}],"forward":[{"tag":"string","value":"three"}]"#), "\(path)")
    }

    @Test func watchShowsAChangedModelAsItsJSON() async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let watch = try RunningScenes(["watch", "--scene", "a"], root: fixture.root)
        #expect(await watch.lines.first(within: .seconds(30)) != nil, "no ready line")
        let base64 = Data(Self.model.utf8).base64EncodedString()
        #expect(try await scenes(["set", "--scene", "a", "layout", "--data-base64", base64], root: fixture.root).status == 0)
        let line = await watch.lines.first(within: .seconds(30)) { $0.contains("layout") }
        #expect(line?.contains("(none) -> " + Self.model) == true, "\(line ?? "nothing")")
        watch.kill(SIGTERM)
        _ = await watch.exitStatus()
    }

    @Test func aChangeDescribesAModelAsItsJSON() {
        let change = SceneChange(
            key: "layout", oldValue: nil, newValue: .data(Data(Self.model.utf8)), origin: .external(writerPID: 42), generation: 7)
        #expect(change.readableDescription == "layout: (none) -> \(Self.model) (external, pid 42, generation 7)")
        #expect(SceneValue.data(Data([0, 1])).readableDescription == "AAE=")
        #expect(SceneValue.data(Data(#"{"elements":"not a list","version":1}"#.utf8)).storedDocumentText == nil)
    }
}
