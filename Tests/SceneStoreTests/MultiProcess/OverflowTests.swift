import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension MultiProcess {
    /// More events than the kernel queues (`IN_Q_OVERFLOW`): every open
    /// scene of the process that missed them still ends equal to the disk.
    @Suite struct OverflowTests {
        // Hang guard: it took 5 s here (2 cores); 1 minute, at least 4 times that.
        @Test(.timeLimit(.minutes(1)))
        func overflowedQueueStillEndsEqualToDisk() async throws {
            let fixture = try await SceneStoreFixture()
            let scenes = (0..<5).map { "open-\($0)" }
            for scene in scenes {
                let store = try await fixture.registry.store(for: scene)
                try store.set("before", forKey: "state")
                try await store.flush()
            }
            let follower = try RunningScenes(
                ["probe", "follow"] + scenes.flatMap { ["--scene", $0] }, root: fixture.root, program: .lab)
            let log = LineLog(follower)
            let ready = try #require(await log.next { $0.hasPrefix("ready") })
            #expect(ready.hasSuffix("inotify"))

            // Stopped, the follower reads nothing: fill its inotify queue past
            // the limit, then change every scene. Those events are dropped by
            // the kernel; only the overflow's rescan can bring the changes.
            let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16384
            await follower.stop()
            let flood = limit + 1000
            for index in 0..<flood {
                let path = fixture.root.appendingPathComponent(".flood-\(index)").path
                let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
                #expect(fd >= 0)
                close(fd)
            }
            for (index, scene) in scenes.enumerated() {
                let store = try await fixture.registry.store(for: scene)
                try store.set("after", forKey: "state")
                try store.set(index, forKey: "index")
                try await store.flush()
            }
            follower.kill(SIGCONT)

            for scene in scenes {
                let disk = try await onDisk(scene, root: fixture.root)
                #expect(disk.values["state"] == .string("after"))
                let seen = await log.printed(FollowedScene(scene: scene, generation: disk.generation, values: disk.values))
                #expect(seen, "\(scene) in the follower never matched the disk (generation \(disk.generation))")
            }
            follower.closeInput()
            #expect(await follower.exitStatus(within: .seconds(30)) == 0)
            print("overflow: \(flood) events queued against a limit of \(limit) while the follower was stopped; all \(scenes.count) open scenes ended equal to disk")
            await fixture.tearDown()
        }
    }
}

extension LineLog {
    /// Whether `probe follow` printed `expected`, so far or within 10 s.
    func printed(_ expected: FollowedScene) async -> Bool {
        if lines.contains(where: { decodeJSON(FollowedScene.self, from: $0) == expected }) { return true }
        return await next(FollowedScene.self, within: .seconds(30)) { $0 == expected } != nil
    }
}
