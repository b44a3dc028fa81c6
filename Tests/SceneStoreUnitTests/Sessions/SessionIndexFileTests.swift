import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// The sessions index file has the scene files' defences: never read or
/// written through a symbolic link, never blocking on a FIFO, never read
/// past ``SessionIndex/maxBytes``; each refusal is a typed error, and the
/// file is left as it is.
// Hang guard: its slowest test took 13 s in its layer here, 59 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct SessionIndexFileTests {
    /// A fresh root (created) and the path of its index.
    static func fixture() throws -> (fixture: SceneStoreFixture, index: String) {
        var configuration = SceneRegistry.Configuration.testing
        configuration.watcher = .none
        let fixture = try SceneStoreFixture(configuration: configuration)
        try FileManager.default.createDirectory(at: fixture.root, withIntermediateDirectories: true)
        return (fixture, fixture.root.appendingPathComponent(SessionIndex.fileName).path)
    }

    /// An index that, read, offers window `w-outside` titled "followed".
    static let validIndex = "scenestore.sessions 1\nw-outside\t1\t2\t0\t-\t=followed\n"

    /// What reading the index (`sessions()`) and writing it (`setTitle`)
    /// threw; both must throw.
    static func refusals(_ fixture: SceneStoreFixture) async -> [SceneStoreError?] {
        let read = await #expect(throws: SceneStoreError.self) { try await fixture.registry.sessions() }
        let write = await #expect(throws: SceneStoreError.self) {
            try await fixture.registry.setTitle("changed", for: SceneID("w-outside"))
        }
        return [read, write]
    }

    /// The kind of file a ``SceneStoreError/notARegularFile(path:found:)``
    /// about the index names.
    static func foundInstead(_ error: SceneStoreError?) -> String? {
        guard case .notARegularFile(let path, let found)? = error, path.hasSuffix("/" + SessionIndex.fileName) else {
            return nil
        }
        return found
    }

    @Test func aSymlinkToAFileOutsideIsNeitherReadNorWrittenThrough() async throws {
        let (fixture, index) = try Self.fixture()
        let outside = fixture.directory.appendingPathComponent("outside").path
        try Self.validIndex.write(toFile: outside, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: index, withDestinationPath: outside)
        for error in await Self.refusals(fixture) {
            #expect(Self.foundInstead(error) == "symbolic link", "\(String(describing: error))")
        }
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == Self.validIndex)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: index) == outside, "the link is left as it was")
        await fixture.tearDown()
    }

    @Test func aLinkToDevZeroIsRefusedUnread() async throws {
        let (fixture, index) = try Self.fixture()
        try FileManager.default.createSymbolicLink(atPath: index, withDestinationPath: "/dev/zero")
        for error in await Self.refusals(fixture) {
            #expect(Self.foundInstead(error) == "symbolic link", "\(String(describing: error))")
        }
        await fixture.tearDown()
    }

    @Test func aFIFOIsRefusedWithoutBlocking() async throws {
        let (fixture, index) = try Self.fixture()
        #expect(mkfifo(index, 0o600) == 0)
        for error in await Self.refusals(fixture) {
            #expect(Self.foundInstead(error) == "FIFO", "\(String(describing: error))")
        }
        var info = stat()
        #expect(lstat(index, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is left as it was")
        await fixture.tearDown()
    }

    /// A sparse file (`ftruncate`) just over the bound, and one of 2 GiB:
    /// refused from its size alone, before a byte is read.
    @Test(arguments: [SessionIndex.maxBytes + 1, 2 << 30])
    func anIndexOverTheBoundIsRefusedUnreadAndKept(size: Int) async throws {
        let (fixture, index) = try Self.fixture()
        try Self.validIndex.write(toFile: index, atomically: false, encoding: .utf8)
        let handle = try #require(FileHandle(forWritingAtPath: index))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        for error in await Self.refusals(fixture) {
            guard case .io("read", let path, .fileTooLarge)? = error, path.hasSuffix("/" + SessionIndex.fileName) else {
                Issue.record("expected read's EFBIG about the index, got \(String(describing: error))")
                continue
            }
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: index)
        #expect((attributes[.size] as? NSNumber)?.intValue == size, "the index is left as it was")
        await fixture.tearDown()
    }

    @Test func aWriteThatWouldPassTheBoundIsRefusedAndTheIndexKept() async throws {
        let (fixture, index) = try Self.fixture()
        let window = try await fixture.registry.newScene(title: "kept")
        let before = try Data(contentsOf: URL(fileURLWithPath: index))
        let title = String(repeating: "x", count: SessionIndex.maxBytes)
        let error = await #expect(throws: SceneStoreError.self) { try await fixture.registry.setTitle(title, for: window.id) }
        guard case .io("write", let path, .fileTooLarge)? = error, path.hasSuffix("/" + SessionIndex.fileName) else {
            Issue.record("expected write's EFBIG about the index, got \(String(describing: error))")
            return
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: index)) == before)
        #expect(try await fixture.registry.sessions().map(\.title) == ["kept"])
        await fixture.tearDown()
    }
}
