import Foundation
import SceneStoreTesting
import Testing
import TestSupport
@testable import SceneStore

#if canImport(Glibc)
import Glibc
#endif

extension SyncWatcherTests {
    /// Where no watcher serves, every open scene is read again at an
    /// interval of the registry's clock (``RereadTimer``).
    @Suite struct RereadTests {
        @Test func aPollingRegistryReadsItsOpenScenesAtEachIntervalOfItsClock() async throws {
            let clock = ManualClock()
            var configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .polling(interval: .seconds(1)))
            configuration.clock = clock
            let fixture = try await SceneStoreFixture(configuration: configuration)
            #expect(fixture.registry.watcherKind == .polling(interval: .seconds(1)))
            let store = try await fixture.registry.store(for: "main")
            let changes = store.changes()
            let writer = try await fixture.otherRegistry(configuration: .init(savePolicy: .onFlush, watcher: .none))
                .store(for: "main")
            try writer.set(1, forKey: "a")
            try await writer.flush()
            #expect(store.snapshot.isEmpty, "read before the clock reached the interval")
            await clock.advance(by: .seconds(1))
            #expect(await changes.first(within: .seconds(30)) { $0.key == "a" }?.newValue == .int(1))
            // And at the next interval again.
            try writer.set(2, forKey: "a")
            try await writer.flush()
            await clock.advance(by: .seconds(1))
            #expect(await changes.first(within: .seconds(30)) { $0.key == "a" }?.newValue == .int(2))
            await fixture.tearDown()
        }

        @Test func thePreferenceSelectsHowTheRootIsWatched() async throws {
            for (preference, kind) in [(WatcherPreference.none, WatcherKind?.none), (.inotify, .inotify), (.automatic, .inotify),
                                       (.polling(interval: .seconds(2)), .polling(interval: .seconds(2)))] {
                let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: preference))
                #expect(fixture.registry.watcherKind == kind, "\(preference)")
                await fixture.tearDown()
            }
        }

        /// On a file system with coarse timestamps (ramfs, a 4 ms tick),
        /// two saves 1 ms apart reach a store that polls every 5 ms: the
        /// store ends with the second, in each of 100 trials. (The polling
        /// watcher this replaced compared `stat` stamps and missed 8 of 100
        /// same-size saves within one tick; a re-read compares the file's
        /// bytes.)
        // Hang guard: 100 trials took about 2 s here (2 cores); 2 minutes.
        @Test(.enabled(if: getuid() == 0, "mounting a ramfs needs root"), .timeLimit(.minutes(2)))
        func savesWithinOneTimestampTickReachAPollingStore() async throws {
            let base = try TemporaryDirectory("ramfs")
            defer { base.remove() }
            let disk = try TmpfsMount.ramfs(at: base.url.appendingPathComponent("coarse"))
            defer { disk.unmount() }
            let root = disk.path
            let polling = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .polling(interval: .milliseconds(5))))
            let writing = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .none))
            let store = try await polling.store(for: "main")
            let writer = try await writing.store(for: "main")
            var missed: [Int] = []
            for trial in 0..<100 {
                let second = "second \(trial)"
                let values = store.values(forKey: "v", default: "")
                // The workload, not a wait for anything: the first save
                // falls anywhere within a polling interval, the second 1 ms later.
                usleep(UInt32(trial % 10) * 500)
                try writer.set("first  \(trial)", forKey: "v")
                try await writer.flush()
                usleep(1000)
                try writer.set(second, forKey: "v")
                try await writer.flush()
                let reached = await values.first(within: Duration.seconds(10)) { (value: String) in value == second }
                if reached == nil { missed.append(trial) }
            }
            print("polling on ramfs: \(missed.count) of 100 second saves not reached")
            #expect(missed.isEmpty, "\(missed)")
            try await writing.close()
            try await polling.close()
        }
    }
}
