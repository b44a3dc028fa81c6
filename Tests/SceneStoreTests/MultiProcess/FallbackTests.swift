import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension MultiProcess {
    /// The polling watcher, forced, passes the propagation and lost-update
    /// checks; and inotify that cannot serve falls back to it.
    @Suite struct FallbackTests {
        static let polling = SceneRegistry.Configuration(
            savePolicy: .onFlush, watcher: .polling(interval: .milliseconds(50)))
        static let pollingArguments = ["--watcher", "polling", "--poll-interval-ms", "50"]

        // Hang guard: it took 8 s in its layer here, 55 s in the whole suite (every test at once on 2 cores); 2 minutes.
        @Test(.timeLimit(.minutes(2)))
        func pollingPropagatesASet() async throws {
            let fixture = try await SceneStoreFixture(configuration: Self.polling)
            #expect(fixture.registry.watcherKind == .polling(interval: .milliseconds(50)))
            await fixture.tearDown()
            try await Self.checkSetReachesChangeStream(configuration: Self.polling)
        }

        /// A `scenes-lab` writer in another process sets a key; the change
        /// stream here yields it, marked external with the writer's pid.
        static func checkSetReachesChangeStream(configuration: SceneRegistry.Configuration) async throws {
            let fixture = try await SceneStoreFixture(configuration: configuration)
            let store = try await fixture.registry.store(for: "main")
            let changes = store.changes()
            let writer = try RunningScenes(
                ["stress", "--scene", "main", "--count", "1", "--prefix", "tab"], root: fixture.root, program: .lab)
            let writerPID = writer.pid
            #expect(await writer.exitStatus(within: .seconds(30)) == 0)
            let change = try #require(await changes.first(within: .seconds(30)) { $0.key == "tab0" })
            #expect(change.newValue == .int(0))
            #expect(change.oldValue == nil)
            #expect(change.origin == .external(writerPID: writerPID))
            await fixture.tearDown()
        }

        // Hang guard: it took 36 s in its layer here, 122 s in the whole suite (every test at once on 2 cores); 4 minutes.
        @Test(.timeLimit(.minutes(4)))
        func pollingLosesNoUpdatesOfDistinctKeys() async throws {
            try await checkDistinctKeysSurvive(watcherArguments: Self.pollingArguments, observer: Self.polling)
        }

        // Hang guard: it took 2 s here (2 cores); 1 minute, at least 4 times that.
        @Test(.timeLimit(.minutes(1)))
        func pollingConvergesOnOneKey() async throws {
            try await checkSameKeyConverges(watcherArguments: Self.pollingArguments, observer: Self.polling)
        }

        /// With every descriptor below 1024 taken, libinotifytools' would
        /// land where its `select()` aborts: inotify is refused and the
        /// automatic watcher polls (checked in a fresh process).
        // Hang guard: it took under 1 s here (2 cores); 1 minute, at least 4 times that.
        @Test(.timeLimit(.minutes(1)))
        func descriptorAbove1023FallsBackToPolling() async throws {
            struct Report: Decodable {
                let filledUpTo: Int32
                let inotifyOnly: String?
                let automatic: String?
                let inotifyFDs: Int
                let fallbackSawChange: Bool
            }
            let report = try await probe(Report.self, ["high-fd"])
            #expect(report.filledUpTo >= 1023)
            #expect(report.inotifyOnly == nil, "inotify only: refused, the registry runs without a watcher")
            #expect(report.automatic == WatcherKind.polling(interval: .milliseconds(250)).description)
            #expect(report.inotifyFDs == 0)
            #expect(report.fallbackSawChange)
        }
    }
}
