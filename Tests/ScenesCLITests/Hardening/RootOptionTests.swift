import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

// Hang guard: its slowest test took 13 s in its layer here, 62 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct RootOptionTests {
    /// `--root ''` would be the current directory: refused as a usage
    /// error (64) before anything is opened.
    @Test(arguments: [
        ["set", "--root", "", "--scene", "a", "k", "--int", "1"],
        ["--root", "", "set", "--scene", "a", "k", "--int", "1"],
        ["get", "--root", "", "--scene", "a", "k"],
        ["show", "--root", "", "--scene", "a"],
        ["list", "--root", ""],
        ["remove", "--root", "", "--scene", "a", "k"],
        ["discard", "--root", "", "--scene", "a"],
        ["watch", "--root", "", "--scene", "a"],
        ["run", "--root", "", "--scene", "a"],
        ["catalog", "reset", "--root", ""],
    ])
    func emptyRootIsAUsageError(arguments: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        let workingDirectory = fixture.directory.appendingPathComponent("cwd")
        try FileManager.default.createDirectory(at: workingDirectory, withIntermediateDirectories: false)
        let result = try await scenes(arguments, root: fixture.root, workingDirectory: workingDirectory)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--root must name a directory"), "\(result.stderr)")
        #expect(treeListing(workingDirectory) == [])
    }

    /// A root that group or others may read gets one warning per command,
    /// however many scenes the command opens.
    @Test func looseRootIsReportedOnceOnStderr() async throws {
        let fixture = try await SceneStoreFixture()
        for scene in ["a", "b", "c"] {
            #expect(try await scenes(["set", "--scene", scene, "k", "--int", "1"], root: fixture.root).status == 0)
        }
        #expect(chmod(fixture.root.path, 0o755) == 0)
        let warning = "scene root is accessible to other users"
        for arguments in [["list", "--json"], ["show", "--scene", "a"], ["set", "--scene", "a", "k", "--int", "2"]] {
            let result = try await scenes(arguments, root: fixture.root)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr.components(separatedBy: warning).count - 1 == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("755"))
        }
        #expect(chmod(fixture.root.path, 0o700) == 0)
        #expect(try await scenes(["list", "--json"], root: fixture.root).stderr.isEmpty)
    }
}
