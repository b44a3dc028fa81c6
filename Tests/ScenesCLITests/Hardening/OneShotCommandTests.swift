import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `get`, `show` and `list` only read: they create nothing. No one-shot
/// command starts a file watcher.
// Hang guard: its slowest test took 13 s in its layer here, 64 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct OneShotCommandTests {
    @Test(arguments: [
        ["get", "--scene", "a", "k"],
        ["get", "--json", "--scene", "a", "k"],
        ["show", "--scene", "a"],
        ["show", "--json", "--scene", "a"],
        ["remove", "--scene", "a", "k"],
        ["discard", "--scene", "a"],
    ])
    func aMissingRootStaysMissing(arguments: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("absent")
        let result = try await scenes(arguments, root: root)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains(#"no key "k""#) || result.stderr.contains(#"no scene "a""#), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    @Test func listOfAMissingRootIsEmptyAndCreatesNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("absent")
        let plain = try await scenes(["list"], root: root)
        #expect(plain.status == 0 && plain.stdout.isEmpty, "\(plain)")
        let json = try await scenes(["list", "--json"], root: root)
        #expect(json.status == 0 && json.stdout == "[]\n", "\(json)")
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    /// Reading an existing scene leaves the root exactly as it was: no lock
    /// file, no quarantine, even for a damaged scene file.
    @Test func readingCreatesNoFileInAnExistingRoot() async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        try FileManager.default.removeItem(at: fixture.root.appendingPathComponent(".scenestore.lock"))
        try Data("not a scene".utf8).write(to: fixture.root.appendingPathComponent("broken.scene"))
        let before = treeListing(fixture.root)
        for arguments in [
            ["get", "--scene", "a", "k"], ["show", "--scene", "a"], ["list"], ["list", "--json"],
            ["get", "--scene", "b", "k"], ["show", "--scene", "broken"], ["get", "--scene", "broken", "k"],
        ] {
            _ = try await scenes(arguments, root: fixture.root)
        }
        #expect(treeListing(fixture.root) == before)
        #expect(try await scenes(["get", "--scene", "a", "k"], root: fixture.root).stdout == "1\n")
    }

    /// Caught with the registry open (stdout full), the process has no
    /// inotify descriptor and no watcher thread.
    @Test(arguments: [
        ["get", "--scene", "a", "k"],
        ["show", "--scene", "a"],
        ["list"],
    ])
    func readingCommandsStartNoWatcher(arguments: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let held = try HeldScenes.blockedOnStdout(arguments, root: fixture.root)
        #expect(await held.wait { held.isBlockedWritingStdout }, "never blocked writing its output")
        #expect(held.watcherTraces == [], "threads \(held.threadNames), fds \(held.fdTargets)")
        #expect(await held.release() == 0)
    }

    /// Caught waiting for the scene lock (held by another process), with the
    /// registry open, the process has no watcher either.
    @Test(.enabled(if: LockHolder.isAvailable, "needs perl"), arguments: [
        ["set", "--scene", "a", "k", "--int", "2"],
        ["remove", "--scene", "a", "k"],
        ["discard", "--scene", "a"],
    ])
    func writingCommandsStartNoWatcher(arguments: [String]) async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--int", "1"], root: fixture.root).status == 0)
        let holder = try LockHolder(scene: "a", root: fixture.root)
        let held = try HeldScenes.waitingForLock(["--lock-timeout", "60"] + arguments, root: fixture.root)
        #expect(await held.wait { held.isWaitingForALock }, "never waited for the lock")
        #expect(held.watcherTraces == [], "threads \(held.threadNames), fds \(held.fdTargets)")
        holder.release()
        #expect(await held.release() == 0)
    }
}
