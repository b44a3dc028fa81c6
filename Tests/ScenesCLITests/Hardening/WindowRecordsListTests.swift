import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `scenes list` reports a sessions index it cannot read (a symbolic link,
/// a FIFO, a file of gigabytes) on stderr and exits 1, never showing the
/// scenes as if no window had state; the index is left as it is.
// Hang guard: its slowest test took 10 s in its layer here, 57 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct SessionIndexListTests {
    /// What stands at the index's path, and the words the error says.
    static let damages: [(kind: String, says: String)] = [
        ("symlink", "is a symbolic link, not a regular file"),
        ("fifo", "is a FIFO, not a regular file"),
        ("sparse 2 GiB", "File too large"),
    ]

    @Test(arguments: damages)
    func listReportsAnIndexItCannotReadAndFails(_ kind: String, says: String) async throws {
        let fixture = try SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let index = fixture.root.appendingPathComponent(".scenestore-sessions").path
        switch kind {
        case "symlink":
            let outside = fixture.directory.appendingPathComponent("outside").path
            try "scenestore.sessions 1\na\t1\t2\t0\t-\t=followed\n".write(toFile: outside, atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: index, withDestinationPath: outside)
        case "fifo":
            #expect(mkfifo(index, 0o600) == 0)
        default:
            #expect(FileManager.default.createFile(atPath: index, contents: nil))
            #expect(truncate(index, 2 << 30) == 0)
        }
        for arguments in [["list"], ["list", "--json"]] {
            let list = try await scenes(arguments, root: fixture.root)
            #expect(list.status == 1, "\(arguments): \(list.stdout)")
            #expect(list.stderr.contains(".scenestore-sessions"), "\(list.stderr)")
            #expect(list.stderr.contains(says), "\(list.stderr)")
        }
        var info = stat()
        #expect(lstat(index, &info) == 0)
        let expected = ["symlink": S_IFLNK, "fifo": S_IFIFO][kind] ?? S_IFREG
        #expect(info.st_mode & S_IFMT == expected, "the index is left as it was")
        await fixture.tearDown()
    }
}
