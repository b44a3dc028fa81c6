import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Probe {
    /// Opens and closes registries on many fresh roots and compares the
    /// process's descriptors, threads and inotify watches before and after.
    struct Lifecycle: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open/close cycles of stores on fresh roots; print counts before and after as JSON.")

        @Option(help: "Open/close cycles per phase.") var cycles = 1000
        @Option(help: "Seconds to wait, at most, for the watcher thread to exit after the last close.")
        var settleSeconds = 5.0

        /// The probe's output.
        struct Report: Encodable {
            var probe = "lifecycle"
            var cycles: Int
            /// Before any cycle (after a short warm-up).
            var baseline: ProcessStats.Counts
            /// After the cycles in which every close stopped the watcher.
            var afterCycles: ProcessStats.Counts
            /// With one more registry kept open during the second phase, so
            /// the inotify instance lives on and its watches can be counted.
            var anchoredBefore: ProcessStats.Counts
            var anchoredAfter: ProcessStats.Counts
            /// After the anchor closed too.
            var final: ProcessStats.Counts
            var seconds: Double
        }

        func validate() throws {
            guard cycles >= 1 else { throw ValidationError("--cycles must be at least 1") }
        }

        func run() async throws {
            let started = ContinuousClock.now
            let scratch = try makeTemporaryDirectory("lifecycle")
            defer { try? FileManager.default.removeItem(at: scratch) }

            // Warm up: the first cycles create Dispatch worker threads, and
            // the first timer Dispatch's timer descriptor, which all stay.
            try await runCycles(5, in: scratch, label: "warmup")
            try await Task.sleep(for: .milliseconds(20))
            let baseline = await settled(watcherStopped: true, atMost: nil)

            try await runCycles(cycles, in: scratch, label: "free")
            let afterCycles = await settled(watcherStopped: true, atMost: baseline)

            let anchor = try await SceneRegistry(
                root: scratch.appendingPathComponent("anchor"), configuration: .init(savePolicy: .onFlush))
            let anchoredBefore = ProcessStats.counts()
            try await runCycles(cycles, in: scratch, label: "anchored")
            let anchoredAfter = await settled(watcherStopped: false, atMost: anchoredBefore)
            try await anchor.close()
            let final = await settled(watcherStopped: true, atMost: baseline)

            emit(try jsonLine(Report(
                cycles: cycles, baseline: baseline, afterCycles: afterCycles,
                anchoredBefore: anchoredBefore, anchoredAfter: anchoredAfter, final: final,
                seconds: Self.seconds(ContinuousClock.now - started))))
        }

        /// One cycle: a registry on a new root, one store, one durable set, close.
        private func runCycles(_ count: Int, in scratch: URL, label: String) async throws {
            for index in 0..<count {
                let directory = scratch.appendingPathComponent("\(label)-\(index)")
                let registry = try await SceneRegistry(
                    root: directory.appendingPathComponent("scenes"), configuration: .init(savePolicy: .onFlush))
                try await registry.store(for: "cycle").set(index, forKey: "index")
                try await registry.close()
                try FileManager.default.removeItem(at: directory)
            }
        }

        /// The counts once they are down to `limit` (descriptors and
        /// threads) and, with `watcherStopped`, the watcher's thread and
        /// descriptor are gone (they go right after the last interest is
        /// cancelled); or whatever they are after `--settle-seconds`.
        private func settled(watcherStopped: Bool, atMost limit: ProcessStats.Counts?) async -> ProcessStats.Counts {
            let deadline = ContinuousClock.now + .milliseconds(Int(settleSeconds * 1000))
            while true {
                let counts = ProcessStats.counts()
                let watcherGone = counts.inotifyFDs == 0
                    && ProcessStats.threadStatPath(named: WatcherKind.inotifyThreadName) == nil
                let withinLimit = limit.map { counts.fds <= $0.fds && counts.threads <= $0.threads } ?? true
                if (watcherGone || !watcherStopped) && withinLimit { return counts }
                if ContinuousClock.now >= deadline { return counts }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }
}
