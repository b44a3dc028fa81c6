import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// A multi-window app's launch query on a root of many window scenes:
    /// `scenesToRestore()` (the index, a lock probe per window it says is
    /// open) next to the floor, one plain listing of the same root
    /// (`readdir` of every entry), measured in the same run.
    ///
    /// The root holds `--scenes` window scenes, each with a scene file and
    /// its claim file, and their records; `--held` of them are claimed by
    /// this process while the query runs (so `/proc/locks` is not empty).
    /// The records are written straight in the index's documented format,
    /// one file: making them through `newScene` would rewrite the index
    /// once per window.
    struct Windows: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The launch query (scenesToRestore) on a root of many windows, next to one listing of it.")

        @Option(help: "Window scenes in the root.") var scenes = 10_000
        @Option(help: "Of them, held by this process during the query.") var held = 100
        @Option(help: "Measured queries (each from a fresh registry).") var runs = 9
        @Option(help: "Where to create the benchmark's temporary directory (default: the temporary directory).")
        var directory: String?

        struct Report: Encodable {
            var bench = "windows"
            var scenes: Int
            var held: Int
            var restorable: Int
            var launchQuery: Summary
            var listing: Summary
            /// Launch query over listing, medians.
            var ratio: Double
        }

        func validate() throws {
            guard scenes >= 1, held >= 0, held <= scenes, runs >= 1 else {
                throw ValidationError("--scenes and --runs must be positive, --held from 0 to --scenes")
            }
        }

        func run() async throws {
            let scratch = try makeTemporaryDirectory("bench", in: directory)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let root = scratch.appendingPathComponent("scenes")
            let configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none)

            let ids = try await Self.populate(root: root, scenes: scenes, configuration: configuration)
            let holder = try SceneRegistry(root: root, configuration: configuration)
            for id in ids.prefix(held) { _ = try await holder.reopen(id) }

            var queries: [Int] = []
            var listings: [Int] = []
            var restorable = 0
            for _ in 0..<runs {
                let listingStart = DispatchTime.now().uptimeNanoseconds
                let entries = try Self.list(root)
                listings.append(Int(DispatchTime.now().uptimeNanoseconds - listingStart))
                guard entries >= scenes * 2 else {
                    throw ValidationError("the root lists \(entries) entries, not every scene and claim file")
                }

                let registry = try SceneRegistry(root: root, configuration: configuration)
                let start = DispatchTime.now().uptimeNanoseconds
                restorable = try await registry.scenesToRestore().count
                queries.append(Int(DispatchTime.now().uptimeNanoseconds - start))
                registry.abandon()
            }
            try await holder.close()

            let report = Report(
                scenes: scenes, held: held, restorable: restorable,
                launchQuery: Summary(nanoseconds: queries), listing: Summary(nanoseconds: listings),
                ratio: Summary(nanoseconds: queries).p50Ms / Summary(nanoseconds: listings).p50Ms)
            emit("windows: \(scenes) window scenes, \(held) held, \(runs) queries")
            emit(Summary.header)
            emit(report.launchQuery.row("launch query"))
            emit(report.listing.row("listing (floor)"))
            emit("ratio".padding(toLength: 16, withPad: " ", startingAt: 0) + String(format: "%10.2fx", report.ratio))
            emit(try jsonLine(report))
        }

        /// `count` window scenes with one key each, their claim files and
        /// their records, quit a second apart.
        static func populate(root: URL, scenes count: Int, configuration: SceneRegistry.Configuration) async throws -> [SceneID] {
            let registry = try SceneRegistry(root: root, configuration: configuration)
            var ids: [SceneID] = []
            var index = "scenestore.sessions 1\n"
            let base = Int64(Date().timeIntervalSince1970 * 1000) - Int64(count) * 1000
            for number in 0..<count {
                let id = try SceneID(String(format: "w-%012x", number))
                ids.append(id)
                let store = try await registry.store(for: id)
                try store.set(number, forKey: "n")
                try await store.flush()
                let claim = root.appendingPathComponent(".\(id.rawValue)~claim").path
                let fd = open(claim, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
                if fd >= 0 { close(fd) }
                let time = base + Int64(number) * 1000
                index += "\(id.rawValue)\t\(time)\t\(time)\t0\t-\t-\n"
            }
            try await registry.close()
            try Data(index.utf8).write(to: root.appendingPathComponent(".scenestore-sessions"), options: .atomic)
            return ids
        }

        /// The number of entries in `root`, read with `readdir`.
        static func list(_ root: URL) throws -> Int {
            guard let directory = opendir(root.path) else {
                throw ValidationError("cannot list \(root.path): errno \(errno)")
            }
            defer { closedir(directory) }
            var count = 0
            while readdir(directory) != nil { count += 1 }
            return count
        }
    }
}
