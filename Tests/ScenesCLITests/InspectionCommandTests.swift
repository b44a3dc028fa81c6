import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

@Suite struct InspectionCommandTests {
    @Test func setThenGetInANewProcess() async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "5"], root: fixture.root).status == 0)
        let result = try await scenes(["get", "--scene", "a", "k"], root: fixture.root)
        #expect(result.status == 0)
        #expect(result.stdout == "5\n")
    }

    @Test(arguments: [
        (["--int", "-5"], "-5"),
        (["--double", "-0.5"], "-0.5"),
        (["--double", "nan"], "nan"),
        (["--bool", "true"], "true"),
        (["--string", "-dash and ünïcode"], "-dash and ünïcode"),
        (["--url", "file:///tmp/a%20b"], "file:///tmp/a%20b"),
        (["--data-base64", "AAEC/w=="], "AAEC/w=="),
        (["--data-base64", ""], ""),
    ])
    func getPrintsValuesTheWaySetTakesThem(flag: [String], printed: String) async throws {
        let fixture = try await SceneStoreFixture()
        let set = try await scenes(["set", "--scene", "a", "k"] + flag, root: fixture.root)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).stdout == printed + "\n")
    }

    @Test func getOfAnAbsentKeyExitsOne() async throws {
        let fixture = try await SceneStoreFixture()
        let result = try await scenes(["get", "--scene", "a", "missing"], root: fixture.root)
        #expect(result.status == 1)
        #expect(result.stderr.contains("missing"))
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        ["set", "--scene", "..", "k", "--int", "1"],
        ["set", "--scene", "a/b", "k", "--int", "1"],
        ["set", "--scene", "", "k", "--int", "1"],
        ["set", "--scene", ".hidden", "k", "--int", "1"],
        ["set", "--scene", String(repeating: "x", count: 129), "k", "--int", "1"],
        ["set", "--scene", "a", "k", "--int", "12x"],
        ["set", "--scene", "a", "k", "--int", "99999999999999999999"],
        ["set", "--scene", "a", "k", "--double", "one"],
        ["set", "--scene", "a", "k", "--bool", "maybe"],
        ["set", "--scene", "a", "k", "--url", "no scheme"],
        ["set", "--scene", "a", "k", "--data-base64", "%%%"],
        ["set", "--scene", "a", "k"],
        ["set", "--scene", "a", "k", "--int", "1", "--string", "s"],
        ["set", "--scene", "a", "", "--int", "1"],
        ["get", "--scene", "../etc", "k"],
    ])
    func badInputExitsNonZeroAndCreatesNothing(arguments: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        try? FileManager.default.removeItem(at: fixture.root)
        let result = try await scenes(arguments, root: fixture.root)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!result.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.root.path))
    }

    @Test func tooLongKeyIsRefusedAndNothingIsWritten() async throws {
        let fixture = try await SceneStoreFixture()
        try await scenes(["set", "--scene", "a", "keep", "--int", "1"], root: fixture.root)
        let before = try Data(contentsOf: fixture.root.appendingPathComponent("a.scene"))
        let long = String(repeating: "k", count: 257)
        let result = try await scenes(["set", "--scene", "a", long, "--int", "2"], root: fixture.root)
        #expect(result.status == 64)
        #expect(result.stderr.contains("256"))
        #expect(try Data(contentsOf: fixture.root.appendingPathComponent("a.scene")) == before)
    }

    @Test func showJSONHasSceneGenerationAndTypedValues() async throws {
        let fixture = try await SceneStoreFixture()
        try await scenes(["set", "--scene", "a", "n", "--int", "-5"], root: fixture.root)
        try await scenes(["set", "--scene", "a", "s", "--string", "hi"], root: fixture.root)
        let result = try await scenes(["show", "--scene", "a", "--json"], root: fixture.root)
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["scene"] as? String == "a")
        #expect(object["generation"] as? Int == 2)
        let values = try #require(object["values"] as? [String: [String: Any]])
        #expect(values["n"]?["type"] as? String == "int")
        #expect(values["n"]?["value"] as? Int == -5)
        #expect(values["s"]?["value"] as? String == "hi")
    }

    @Test func listRemoveAndDiscard() async throws {
        let fixture = try await SceneStoreFixture()
        try await scenes(["set", "--scene", "b", "k", "--int", "1"], root: fixture.root)
        try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root)
        try await scenes(["set", "--scene", "a", "j", "--int", "2"], root: fixture.root)
        #expect(try await scenes(["list"], root: fixture.root).stdout == "a\nb\n")
        #expect(try await scenes(["remove", "--scene", "a", "k"], root: fixture.root).status == 0)
        #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).status == 1)
        #expect(try await scenes(["remove", "--scene", "a", "k"], root: fixture.root).status == 1)
        #expect(try await scenes(["discard", "--scene", "b"], root: fixture.root).status == 0)
        #expect(try await scenes(["list"], root: fixture.root).stdout == "a\n")
        #expect(try await scenes(["discard", "--scene", "b"], root: fixture.root).status == 1)
        #expect(try await scenes(["show", "--scene", "b"], root: fixture.root).status == 1)
    }

    /// `scenes discard` of a window nobody holds closes it for good: no
    /// line in `scenes list`, no file of it left in the root.
    @Test func discardOfARestorableWindowLeavesNeitherListingNorFiles() async throws {
        let fixture = try await SceneStoreFixture()
        let window = try await fixture.registry.newScene(title: "Notes")
        try window.set("draft", forKey: "text")
        try await fixture.registry.close()
        let id = window.id.rawValue
        #expect(try await scenes(["list"], root: fixture.root).stdout.contains(id))
        let discard = try await scenes(["discard", "--scene", id], root: fixture.root)
        #expect(discard.status == 0, "\(discard.stderr)")
        #expect(try await scenes(["list"], root: fixture.root).stdout == "")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root.path).filter { $0.contains(id) } == [])
        await fixture.tearDown()
    }
}
