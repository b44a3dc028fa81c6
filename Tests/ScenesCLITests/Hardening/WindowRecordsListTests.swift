import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `scenes list` (read-only) reports windows' records it cannot read (a
/// symbolic link, a FIFO, a file of gigabytes, damaged bytes) on stderr
/// and exits 1, never showing the scenes as if no window had state; what
/// is there is left as it is.
// Hang guard: its slowest test took 10 s in its layer here, 57 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct WindowRecordsListTests {
    static let damages = ["symlink", "fifo", "sparse 2 GiB", "damaged"]

    @Test(arguments: damages)
    func listReportsRecordsItCannotReadAndFails(_ kind: String) async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let records = fixture.root.appendingPathComponent(".windows.scene").path
        switch kind {
        case "symlink":
            let outside = fixture.directory.appendingPathComponent("outside").path
            #expect(FileManager.default.createFile(atPath: outside, contents: Data("SCNSTORE".utf8)))
            try FileManager.default.createSymbolicLink(atPath: records, withDestinationPath: outside)
        case "fifo":
            #expect(mkfifo(records, 0o600) == 0)
        case "damaged":
            #expect(FileManager.default.createFile(atPath: records, contents: Data("SCNSTORE\u{3}\0\0\0 damaged".utf8)))
        default:
            #expect(FileManager.default.createFile(atPath: records, contents: nil))
            #expect(truncate(records, 2 << 30) == 0)
        }
        for arguments in [["list"], ["list", "--json"]] {
            let list = try await scenes(arguments, root: fixture.root)
            #expect(list.status == 1, "\(arguments): \(list.stdout)")
            #expect(list.stderr.contains(".windows"), "\(list.stderr)")
            #expect(list.stderr.contains("damaged"), "\(list.stderr)")
        }
        var info = stat()
        #expect(lstat(records, &info) == 0)
        let expected = ["symlink": S_IFLNK, "fifo": S_IFIFO][kind] ?? S_IFREG
        #expect(info.st_mode & S_IFMT == expected, "the records are left as they were")
        await fixture.tearDown()
    }
}
