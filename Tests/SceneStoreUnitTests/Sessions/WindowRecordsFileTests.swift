import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// The windows' records have a scene file's defences, being one: never
/// read through a symbolic link, never blocking on a FIFO, never read past
/// the largest document; what is found there is moved to `quarantine/` as
/// it is (a link not followed), the windows start afresh, and the windows'
/// own scenes are untouched. A newer format is refused and left as it is.
// Hang guard: each test takes well under a second here; 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct WindowRecordsFileTests {
    /// A fresh root (created) holding scene `kept`, and the path of the windows' scene.
    static func fixture() async throws -> (fixture: SceneStoreFixture, path: String) {
        var configuration = SceneRegistry.Configuration.testing
        configuration.watcher = .none
        let fixture = try await SceneStoreFixture(configuration: configuration)
        let kept = try await fixture.registry.store(for: "kept")
        try kept.set(1, forKey: "k")
        try await kept.flush()
        return (fixture, SceneDirectory(root: fixture.root).scenePath(.windows))
    }

    /// The kinds of file found in quarantine/ (a link is moved, never followed).
    static func quarantined(_ fixture: SceneStoreFixture) throws -> [FileAttributeType] {
        let folder = fixture.root.appendingPathComponent("quarantine")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try names.filter { $0.hasPrefix(SceneID.windows.rawValue) }.map { name in
            let kind = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.type]
            return kind as? FileAttributeType ?? .typeUnknown
        }
    }

    /// Listing finds nothing and moves `expected` aside; a new window is
    /// then recorded, and scene `kept` still lists with its value.
    static func recovers(_ fixture: SceneStoreFixture, moving expected: FileAttributeType) async throws {
        #expect(try await fixture.registry.sessions().isEmpty)
        #expect(try quarantined(fixture) == [expected])
        let window = try await fixture.registry.newScene(title: "after")
        #expect(try await fixture.otherRegistry().sessions().map(\.id) == [window.id])
        #expect(try await fixture.registry.sceneIDs().contains("kept"))
        #expect(try await fixture.otherRegistry().store(for: "kept").value(forKey: "k", as: Int.self) == 1)
    }

    @Test func aSymlinkToAFileOutsideIsNeitherReadNorWrittenThroughAndMovedAside() async throws {
        let (fixture, path) = try await Self.fixture()
        let outside = fixture.directory.appendingPathComponent("outside").path
        let records = SceneFile(
            scene: SceneID.windows.rawValue, generation: 1, incarnation: "00000000000000aa", writer: .current(),
            values: ["w-outside": .string("1 2 0 - followed")]).encoded()
        #expect(FileManager.default.createFile(atPath: outside, contents: records))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
        try await Self.recovers(fixture, moving: .typeSymbolicLink)
        #expect(FileManager.default.contents(atPath: outside) == records, "the file outside is left as it was")
        await fixture.tearDown()
    }

    @Test func aFIFOIsMovedAsideWithoutBlocking() async throws {
        let (fixture, path) = try await Self.fixture()
        #expect(mkfifo(path, 0o600) == 0)
        try await Self.recovers(fixture, moving: .typeUnknown)
        await fixture.tearDown()
    }

    /// A sparse file of 2 GiB: moved aside from its size alone, unread.
    @Test func aFileOfGigabytesIsMovedAsideUnread() async throws {
        let (fixture, path) = try await Self.fixture()
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, 2 << 30) == 0)
        try await Self.recovers(fixture, moving: .typeRegular)
        await fixture.tearDown()
    }

    @Test func damagedBytesAreMovedAside() async throws {
        let (fixture, path) = try await Self.fixture()
        let window = try await fixture.registry.newScene(title: "lost")
        try window.set(2, forKey: "k")
        try await fixture.registry.close()
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[24] ^= 0xFF  // in the snapshot, after the header and its frame's length
        #expect(FileManager.default.createFile(atPath: path, contents: bytes))
        let relaunched = try await fixture.relaunch()
        #expect(try await relaunched.sessions().isEmpty)
        #expect(try Self.quarantined(fixture) == [.typeRegular])
        #expect(try await relaunched.sceneIDs().contains(window.id), "the window's own scene is untouched")
        await fixture.tearDown()
    }

    @Test func aNewerFormatIsRefusedAndLeftAsItIs() async throws {
        let (fixture, path) = try await Self.fixture()
        var bytes = Array("SCNSTORE".utf8) + [4, 0, 0, 0]
        bytes += [UInt8](repeating: 0, count: 8)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        for attempt in 0..<2 {
            let error = await #expect(throws: SceneStoreError.self) {
                if attempt == 0 { _ = try await fixture.registry.sessions() } else { _ = try await fixture.registry.newScene() }
            }
            guard case .unsupportedFormat(_, 4, _)? = error else {
                Issue.record("expected unsupportedFormat, got \(String(describing: error))")
                continue
            }
        }
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        await fixture.tearDown()
    }

    @Test func aTitleOverTheValueLimitIsRefusedAndTheRecordsKept() async throws {
        let (fixture, _) = try await Self.fixture()
        let window = try await fixture.registry.newScene(title: "kept")
        let title = String(repeating: "x", count: WindowRecords.maxRecordBytes)
        let error = await #expect(throws: SceneStoreError.self) { try await fixture.registry.setTitle(title, for: window.id) }
        guard case .valueTooLarge(window.id.rawValue, _, WindowRecords.maxRecordBytes)? = error else {
            Issue.record("expected valueTooLarge, got \(String(describing: error))")
            return
        }
        #expect(try await fixture.otherRegistry().sessions().map(\.title) == ["kept"])
        await fixture.tearDown()
    }
}
