import Foundation
import SceneStore
import MultiProcessSupport
import Testing

extension MultiProcess {
    /// Open/close cycles of stores on fresh roots (1000 with
    /// `SCENESTORE_SOAK=full`, 300 otherwise) leave no
    /// descriptor, inotify watch or thread behind. Counted from /proc/self
    /// of a fresh `scenes-lab probe lifecycle` process, where no other test
    /// opens anything.
    @Suite struct WatcherLifecycleTests {
        struct Counts: Decodable, CustomStringConvertible {
            let fds: Int
            let threads: Int
            let inotifyFDs: Int
            let inotifyWatches: Int
            let fdTargets: [String]
            let threadNames: [String]

            var description: String {
                "\(fds) fds, \(threads) threads, \(inotifyFDs) inotify fds with \(inotifyWatches) watches"
            }

            var watcherThreads: Int { threadNames.filter { $0 == WatcherKind.inotifyThreadName }.count }
        }

        /// Dispatch's worker pool may keep one more idle thread than it had
        /// at the start; a leak of 1000 cycles would show as hundreds.
        static let dispatchSlack = 1

        struct Report: Decodable {
            let cycles: Int
            let baseline: Counts
            let afterCycles: Counts
            let anchoredBefore: Counts
            let anchoredAfter: Counts
            let final: Counts
            let seconds: Double
        }

        // Hang guard: it took 43 s here (2 cores); 3 minutes, at least 4 times that.
        @Test(.timeLimit(.minutes(3)))
        func thousandOpenCloseCyclesLeakNothing() async throws {
            let cycles = Soak.count(quick: 300, full: 1000)
            let report = try await probe(Report.self, ["lifecycle", "--cycles", "\(cycles)"])
            #expect(report.cycles == cycles)
            let baseline = report.baseline
            // Every close stops the watcher: its thread, descriptor and watches go.
            #expect(baseline.inotifyFDs == 0 && baseline.inotifyWatches == 0)
            for (label, after) in [("after the cycles", report.afterCycles), ("after the anchor closed", report.final)] {
                #expect(after.fds == baseline.fds, "\(label): \(after.fdTargets) vs \(baseline.fdTargets)")
                #expect(after.inotifyFDs == 0 && after.inotifyWatches == 0, "\(label)")
                #expect(after.watcherThreads == 0, "\(label): \(after.threadNames)")
                #expect(after.threads <= baseline.threads + Self.dispatchSlack, "\(label): \(after.threadNames)")
            }
            // With another registry open the inotify instance lives on: each
            // cycle's watch must have been removed from it.
            let before = report.anchoredBefore
            let after = report.anchoredAfter
            #expect(before.inotifyFDs == 1 && before.watcherThreads == 1)
            #expect(before.inotifyWatches == 3, "the anchor's root, its parent (for the root's deletion) and the wake file")
            #expect(after.inotifyFDs == 1 && after.inotifyWatches == 3 && after.watcherThreads == 1)
            #expect(after.fds == before.fds, "\(after.fdTargets) vs \(before.fdTargets)")
            #expect(after.threads <= before.threads + Self.dispatchSlack, "\(after.threadNames)")
            print("lifecycle: 2 x \(report.cycles) cycles in \(String(format: "%.1f", report.seconds)) s; baseline \(report.baseline), after \(report.afterCycles), anchored \(report.anchoredBefore) -> \(report.anchoredAfter), final \(report.final)")
        }
    }
}
