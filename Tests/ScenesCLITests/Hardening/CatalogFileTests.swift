import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// The demo's catalog file keeps the rules of scene files.
// Hang guard: its slowest test took 12 s in its layer here, 58 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct CatalogFileTests {
    static func mode(_ url: URL) -> mode_t? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    @Test func writtenPrivatelyAndAtomically() async throws {
        let fixture = try await SceneStoreFixture()
        let folder = fixture.root.appendingPathComponent("catalog")
        #expect(try await scenes(["catalog", "reset"], root: fixture.root).status == 0)
        #expect(Self.mode(folder) == 0o700)
        #expect(Self.mode(folder.appendingPathComponent("library.json")) == 0o600)
        #expect(try await scenes(["catalog", "remove", "--song", "Heroes"], root: fixture.root).status == 0)
        #expect(Self.mode(folder.appendingPathComponent("library.json")) == 0o600)
        #expect(treeListing(folder) == ["library.json"], "temp files left behind")
        #expect(try await !scenes(["catalog", "list"], root: fixture.root).stdout.contains("Heroes"))
    }

    @Test func listingAMissingCatalogWritesNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("absent")
        let list = try await scenes(["catalog", "list"], root: root)
        #expect(list.status == 0)
        #expect(list.stdout.contains("Blue in Green"))
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    /// A symlink in place of the catalog (or its folder) is an error for
    /// every command that touches it, and nothing is written through it.
    @Test(arguments: [false, true])
    func aSymlinkIsNeverFollowed(folderIsTheLink: Bool) async throws {
        let fixture = try await SceneStoreFixture()
        let outside = fixture.directory.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let target = outside.appendingPathComponent("library.json")
        try Data("precious\n".utf8).write(to: target)
        try FileManager.default.createDirectory(at: fixture.root, withIntermediateDirectories: true)
        let folder = fixture.root.appendingPathComponent("catalog")
        if folderIsTheLink {
            try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: outside)
        } else {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("library.json"), withDestinationURL: target)
        }

        for arguments in [
            ["catalog", "reset"], ["catalog", "remove", "--song", "Heroes"], ["catalog", "list"],
            ["run", "--headless", "--scene", "a"],
        ] {
            let result = try await scenes(arguments, root: fixture.root, stdin: "show\n")
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("symbolic link"), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "precious\n")
        #expect(treeListing(outside) == ["library.json"])
    }
}
