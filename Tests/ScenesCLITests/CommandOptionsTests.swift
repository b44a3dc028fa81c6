import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `--app-id`, `--version` and the shell completions.
@Suite struct CommandOptionsTests {
    /// `--app-id ID` reads and writes where the library keeps that app's
    /// scenes by default: `$XDG_STATE_HOME/ID/scenes`.
    @Test func appIDUsesTheLibrarysDefaultRootForThatApp() async throws {
        let fixture = try await SceneStoreFixture()
        let state = fixture.directory.appendingPathComponent("state")
        let environment = ["XDG_STATE_HOME": state.path]
        let set = try await scenes(
            ["set", "--app-id", "com.example.editor", "--scene", "main", "k", "--int", "7"],
            root: fixture.root, environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        let expected = try SceneRegistry.defaultRoot(appID: "com.example.editor", environment: environment)
        let registry = try await SceneRegistry(root: expected)
        #expect(try await registry.store(for: "main").value(forKey: "k", as: Int.self) == 7)
        try await registry.close()
        let get = try await scenes(["get", "--app-id", "com.example.editor", "--scene", "main", "k"], root: fixture.root, environment: environment)
        #expect(get.stdout == "7\n")
        #expect(!FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent("main.scene").path))
    }

    @Test(arguments: [["--app-id", "../etc"], ["--app-id", ""], ["--root", "/tmp/x", "--app-id", "a"]])
    func aBadAppIDIsAUsageError(_ options: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        let result = try await scenes(["list"] + options, root: fixture.root)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--app-id"))
    }

    @Test func versionAndCompletions() async throws {
        let fixture = try await SceneStoreFixture()
        let version = try await scenes(["--version"], root: fixture.root)
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("scenes "))
        // The format files carry (it said 1 while files carried 2).
        let stored = try await fixture.registry.store(for: "v")
        try stored.set(1, forKey: "k")
        try await stored.flush()
        let header = try Data(contentsOf: fixture.root.appendingPathComponent("v.scene")).prefix(12)
        #expect(header.prefix(8) == Data("SCNSTORE".utf8))
        let written = header.count == 12 ? Int(header[8]) : nil
        #expect(written != nil && version.stdout.contains("scene file format \(written ?? 0)"), "\(version.stdout)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try await scenes(["--generate-completion-script", shell], root: fixture.root)
            #expect(script.status == 0, "\(shell): \(script.stderr)")
            #expect(script.stdout.contains("scenes"))
        }
    }
}
