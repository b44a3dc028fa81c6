import ArgumentParser
import Foundation
import SceneStore
import Synchronization
import ScenesCLIKit

extension Probe {
    /// Keeps scenes open, with subscribers, while nothing changes, and
    /// reports the CPU time the process used meanwhile.
    struct Idle: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hold open scenes while nothing changes; print the CPU seconds used as JSON.")

        @OptionGroup var watcherOption: WatcherOption
        @Option(help: "How many scenes to keep open.") var scenes = 10
        @Option(help: "How long to measure, in seconds.") var seconds = 10.0

        struct Report: Encodable {
            var probe = "idle"
            var scenes: Int
            var seconds: Double
            var watcher: String
            /// utime + stime of the whole process over the window.
            var cpuSeconds: Double
            /// utime + stime of the inotify owner thread (nil without it).
            var ownerThreadCPUSeconds: Double?
            /// Changes the subscribers received during the window (expected 0).
            var changesSeen: Int
        }

        func validate() throws {
            guard scenes >= 1, seconds > 0 else { throw ValidationError("--scenes and --seconds must be positive") }
        }

        func run() async throws {
            let scratch = try makeTemporaryDirectory("idle")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let registry = try await watcherOption.openRegistry(root: scratch.appendingPathComponent("scenes"))
            let stores = try (0..<scenes).map { try registry.blockingStore(for: "idle-\($0)") }
            for (index, store) in stores.enumerated() {
                try store.set(index, forKey: "index")
                try await store.flush()
            }
            // Subscribers, as an app has them; count what arrives in the window.
            let seen = SharedCounter()
            let measuring = SharedCounter()
            var consumers: [Task<Void, Never>] = []
            for store in stores {
                let changes = store.changes()
                consumers.append(Task {
                    for await _ in changes where measuring.value > 0 { seen.increment() }
                })
            }
            // Let the echoes of our own saves (our watcher sees them) pass.
            try await Task.sleep(for: .milliseconds(300))

            let ownerStat = ProcessStats.threadStatPath(named: WatcherKind.inotifyThreadName)
            let ownerBefore = ownerStat.flatMap { ProcessStats.cpuSeconds(statPath: $0) }
            let before = ProcessStats.cpuSeconds() ?? 0
            measuring.increment()
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))  // the measurement window
            let after = ProcessStats.cpuSeconds() ?? 0
            let ownerAfter = ownerStat.flatMap { ProcessStats.cpuSeconds(statPath: $0) }

            emit(try jsonLine(Report(
                scenes: scenes, seconds: seconds, watcher: registry.watcherKind?.description ?? "none",
                cpuSeconds: after - before,
                ownerThreadCPUSeconds: ownerBefore.flatMap { start in ownerAfter.map { $0 - start } },
                changesSeen: seen.value)))
            try await registry.close()
            for consumer in consumers { await consumer.value }
        }
    }
}

/// A counter shared between tasks.
final class SharedCounter: Sendable {
    private let storage = Atomic<Int>(0)
    var value: Int { storage.load(ordering: .relaxed) }
    func increment() { storage.add(1, ordering: .relaxed) }
}
