import Foundation
import SystemPackage
import SceneStoreTesting
import Testing
@testable import SceneStore

/// The temp, previous-version and tombstone files of one scene can never
/// be taken for another scene's, whatever the two ids are, and the root's
/// lock file for nobody's.
@Suite struct FileNamingTests {
    /// Ids built to look like other scenes' side files.
    static let trickyIDs = [
        "a", "a.json", "a.json.tmp-x", "a.json.prev-x", "a.lock", "a.json.tmp-0123456789abcdef",
        "a-lock", "a.json.json", "a_tmp-0123456789abcdef", "a-prev-0123456789abcdef", "a.discarded",
    ]

    @Test func everySideFileNamesItsOwnSceneOnly() throws {
        let directory = SceneDirectory(root: URL(fileURLWithPath: "/nonexistent"))
        for id in try Self.trickyIDs.map({ try SceneID($0) }) {
            let token = randomToken()
            let names = [
                directory.tempPath(id, token: token),
                directory.previousPath(id, token: token), directory.tombstonePath(id),
            ].map { URL(fileURLWithPath: $0).lastPathComponent }
            for name in names {
                #expect(SceneDirectory.sceneID(forFileNamed: name) == nil, "\(name) read as a scene file")
                for other in try Self.trickyIDs.map({ try SceneID($0) }) where other != id {
                    #expect(SceneDirectory.leftoverOwner(name) != other, "\(name) of \(id) taken for \(other)'s")
                }
            }
            #expect(SceneDirectory.leftoverOwner(names[0]) == id)
            #expect(SceneDirectory.leftoverOwner(names[1]) == id)
            #expect(SceneDirectory.leftoverOwner(names[2]) == nil, "a tombstone is never a leftover")
            #expect(SceneDirectory.sceneID(forFileNamed: URL(fileURLWithPath: directory.scenePath(id)).lastPathComponent) == id)
            // Events on the scene file and on its tombstone (a discard) reach the scene; nothing else does.
            #expect(SceneDirectory.sceneID(forEventOn: URL(fileURLWithPath: directory.scenePath(id)).lastPathComponent) == id)
            #expect(SceneDirectory.sceneID(forEventOn: names[2]) == id)
            for name in names[0...1] {
                #expect(SceneDirectory.sceneID(forEventOn: name) == nil, "\(name)")
            }
        }
        let lockFile = RootLock.fileName
        #expect(SceneDirectory.sceneID(forFileNamed: lockFile) == nil)
        #expect(SceneDirectory.leftoverOwner(lockFile) == nil, "the lock file is never a leftover")
        #expect(SceneDirectory.sceneID(forEventOn: lockFile) == nil)
    }

    @Test func openingASceneNeverUnlinksTheLockFileAHolderHas() async throws {
        let fixture = try await SceneStoreFixture()
        let registry = fixture.registry
        let directory = SceneDirectory(root: fixture.root)
        // Every tricky scene exists and one holds its lock, as a writer in
        // another process would; "a" has a crashed writer's leftover.
        for id in Self.trickyIDs {
            try await registry.store(for: id).set(1, forKey: "k")
            try await registry.store(for: id).flush()
        }
        let held = try directory.lock(.scene("a.json.tmp-x"), timeout: .seconds(5))
        defer { held.unlock() }
        let heldInode = try inode(of: URL(fileURLWithPath: directory.locks.path))
        let leftover = URL(fileURLWithPath: directory.tempPath(SceneID("a"), token: randomToken()))
        try Data("half".utf8).write(to: leftover)

        let other = try await SceneRegistry(root: fixture.root, configuration: .testing)
        _ = try await other.store(for: "a")
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(try inode(of: URL(fileURLWithPath: directory.locks.path)) == heldInode)
        for id in Self.trickyIDs {
            await #expect(try other.store(for: id).value(forKey: "k", default: 0) == 1, "\(id)")
        }
        try await other.close()
        await fixture.tearDown()
    }

    private func inode(of url: URL) throws -> UInt64 {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            throw SceneStoreError.io(syscall: "lstat", path: url.path, errno: Errno(rawValue: errno))
        }
        return UInt64(info.st_ino)
    }
}
