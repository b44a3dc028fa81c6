import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension CrossProcessSync {
    /// `scenes watch --json` in one process shows a `scenes set` made by
    /// another. How soon is printed, not asserted: the bench measures
    /// propagation, and a loaded machine must not fail a test of it.
    // Hang guard: its slowest test took 30 s here (2 cores); 3 minutes, at least 4 times that.
    @Suite(.timeLimit(.minutes(3))) struct WatchCommandTests {
        @Test func watchShowsASetFromAnotherProcess() async throws {
            try await checkWatchShowsSet(watcherArguments: [], expectedWatcher: "inotify")
        }

        @Test func watchWithPollingShowsASet() async throws {
            try await checkWatchShowsSet(
                watcherArguments: ["--watcher", "polling", "--poll-interval-ms", "100"],
                expectedWatcher: WatcherKind.polling(interval: .milliseconds(100)).description)
        }

        private func checkWatchShowsSet(watcherArguments: [String], expectedWatcher: String) async throws {
            let fixture = try await SceneStoreFixture()
            let watch = try RunningScenes(["watch", "--json", "--scene", "w"] + watcherArguments, root: fixture.root)
            let log = LineLog(watch)
            let ready = try #require(await log.next(WatchEvent.self) { $0.event == "ready" })
            #expect(ready.watcher == expectedWatcher)

            let setter = try RunningScenes(["set", "--scene", "w", "color", "--string", "blue"], root: fixture.root)
            #expect(await setter.exitStatus(within: .seconds(30)) == 0)
            let durable = monotonicNow()
            let line = try #require(await log.next(WatchEvent.self) { $0.event == "changed" && $0.key == "color" })
            let lag = milliseconds(monotonicNow() - durable)
            #expect(line.new == .string("blue"))
            #expect(line.origin == "external")
            #expect(line.pid == setter.pid)
            print("watch --json (\(expectedWatcher)): shown \(String(format: "%.1f", lag)) ms after `scenes set` exited")
            watch.kill(SIGTERM)
            _ = await watch.exitStatus(within: .seconds(30))
            await fixture.tearDown()
        }
    }
}
