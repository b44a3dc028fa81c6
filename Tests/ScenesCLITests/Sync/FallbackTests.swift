import Foundation
import SceneStore
import SceneStoreTesting
import Testing

extension CrossProcessSync {
    /// The polling watcher, forced, passes the propagation and lost-update
    /// checks; and inotify that cannot serve falls back to it.
    @Suite struct FallbackTests {
        static let polling = SceneRegistry.Configuration(
            savePolicy: .onFlush, watcher: .polling(interval: .milliseconds(50)))
        static let pollingArguments = ["--watcher", "polling", "--poll-interval-ms", "50"]

        @Test(.timeLimit(.minutes(1)))
        func pollingPropagatesASet() async throws {
            let fixture = try SceneStoreFixture(configuration: Self.polling)
            #expect(fixture.registry.watcherKind == .polling(interval: .milliseconds(50)))
            await fixture.tearDown()
            try await checkSetReachesChangeStream(configuration: Self.polling)
        }

        @Test(.timeLimit(.minutes(3)))
        func pollingLosesNoUpdatesOfDistinctKeys() async throws {
            try await checkDistinctKeysSurvive(watcherArguments: Self.pollingArguments, observer: Self.polling)
        }

        @Test(.timeLimit(.minutes(1)))
        func pollingConvergesOnOneKey() async throws {
            try await checkSameKeyConverges(watcherArguments: Self.pollingArguments, observer: Self.polling)
        }

        /// With every descriptor below 1024 taken, libinotifytools' would
        /// land where its `select()` aborts: inotify is refused and the
        /// automatic watcher polls (checked in a fresh process).
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
            #expect(report.automatic == FileWatcherKind.polling(interval: .milliseconds(250)).description)
            #expect(report.inotifyFDs == 0)
            #expect(report.fallbackSawChange)
        }
    }
}
