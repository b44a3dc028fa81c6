import ArgumentParser
import Foundation
import SceneStore
import SceneStoreTesting
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Probe {
    /// Occupies every descriptor below 1024, so libinotifytools' descriptor
    /// would land where its `select()` aborts the process, and reports
    /// which watcher registries get then.
    struct HighFD: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "high-fd",
            abstract: "Fill descriptors up to 1023, open registries; print the watchers chosen as JSON.")

        struct Report: Encodable {
            var probe = "high-fd"
            /// The highest descriptor occupied before opening registries.
            var filledUpTo: Int32
            /// `--watcher inotify`: nil when refused (the registry runs without one).
            var inotifyOnly: String?
            /// `--watcher auto`: falls back to polling.
            var automatic: String?
            /// inotify descriptors open while the registries are.
            var inotifyFDs: Int
            /// Whether the fallback registry saw a change made by another registry.
            var fallbackSawChange: Bool
        }

        func run() async throws {
            var fillers: [Int32] = []
            defer { fillers.forEach { _ = close($0) } }
            var highest: Int32 = -1
            while highest < 1023 {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw failure("cannot open /dev/null: errno \(errno)") }
                fillers.append(fd)
                highest = fd
            }
            let scratch = try makeTemporaryDirectory("high-fd")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let root = scratch.appendingPathComponent("scenes")

            let inotifyOnly = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .inotify))
            let automatic = try await SceneRegistry(root: root, configuration: .init(
                savePolicy: .onFlush, watcher: .automatic))
            let inotifyFDs = ProcessStats.inotifyDescriptors().count

            let watched = try await automatic.store(for: "s")
            let changes = watched.changes()
            let writer = try await SceneRegistry(root: root, configuration: .init(
                savePolicy: .onFlush, watcher: .polling(interval: .seconds(60))))
            try await writer.store(for: "s").set(1, forKey: "k")
            try await writer.store(for: "s").flush()
            let seen = await changes.first(within: .seconds(10)) { $0.key == "k" } != nil

            emit(try jsonLine(Report(
                filledUpTo: highest,
                inotifyOnly: inotifyOnly.watcherKind?.description,
                automatic: automatic.watcherKind?.description,
                inotifyFDs: inotifyFDs,
                fallbackSawChange: seen)))
            try await writer.close()
            try await automatic.close()
            try await inotifyOnly.close()
        }
    }
}
