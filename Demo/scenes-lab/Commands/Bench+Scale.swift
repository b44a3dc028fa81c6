import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// Whether costs grow linearly: a fresh registry opened on a root of
    /// growing numbers of scene files (open + `sceneIDs()` + one store), and
    /// a scene of growing numbers of keys loaded by a fresh registry. Each
    /// less a baseline of the same work on an empty root (a one-key scene),
    /// measured in the same run. Linear means the cost per file (per key)
    /// stays about flat: a log-log slope near 1. No file watcher: its
    /// inotify teardown (15-20 ms in the kernel at close) would drown the
    /// small sizes.
    struct Scale: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Time per scene file and per key as a root and a scene grow, and the slope.")

        @Option(help: "Measurements per size; the median is reported.") var runs = 5
        @Flag(help: "A smoke test: sizes ten times smaller, one run.") var quick = false
        @Flag(help: "Print one JSON line instead of the table.") var json = false
        @Option(help: "Where to create the benchmark's temporary directory.") var directory: String?

        struct Series: Encodable {
            /// What is counted: "files" or "keys".
            var item: String
            var sizes: [Int]
            /// Median of the baseline (no files; a one-key scene), milliseconds.
            var baselineMs: Double
            /// Median per size less the baseline, milliseconds.
            var totalMs: [Double]
            var microsecondsPerItem: [Double]
            /// Per-item cost at the largest size over that at the smallest.
            var perItemLargestOverSmallest: Double
            /// Least-squares slope of log(time) over log(size): 1 linear, 2 quadratic.
            var logLogSlope: Double

            init(item: String, sizes: [Int], baselineMs: Double, medianMs: [Double]) {
                self.item = item
                self.sizes = sizes
                self.baselineMs = baselineMs
                totalMs = medianMs.map { max($0 - baselineMs, 0) }
                microsecondsPerItem = zip(sizes, totalMs).map { $1 * 1000 / Double($0) }
                perItemLargestOverSmallest = (microsecondsPerItem.last ?? 0) / max(microsecondsPerItem.first ?? 1, .leastNonzeroMagnitude)
                let xs = sizes.map { log(Double($0)) }
                let ys = totalMs.map { log(max($0, .leastNonzeroMagnitude)) }
                let (meanX, meanY) = (xs.reduce(0, +) / Double(xs.count), ys.reduce(0, +) / Double(ys.count))
                let covariance = zip(xs, ys).map { ($0 - meanX) * ($1 - meanY) }.reduce(0, +)
                let variance = xs.map { ($0 - meanX) * ($0 - meanX) }.reduce(0, +)
                logLogSlope = variance > 0 ? covariance / variance : 0
            }

            func print(_ title: String) {
                emit(title + String(format: ", less a baseline of %.2f ms", baselineMs))
                emit("\(item)".leftPadded(to: 10) + "net ms".leftPadded(to: 14) + "µs/\(item.dropLast())".leftPadded(to: 14))
                for (size, (total, perItem)) in zip(sizes, zip(totalMs, microsecondsPerItem)) {
                    emit(String(size).leftPadded(to: 10) + String(format: "%.2f", total).leftPadded(to: 14)
                         + String(format: "%.3f", perItem).leftPadded(to: 14))
                }
                emit(String(format: "  per %@ at %d over at %d: %.2fx; log-log slope %.2f (1 = linear, 2 = quadratic)",
                            String(item.dropLast()), sizes.last ?? 0, sizes.first ?? 0, perItemLargestOverSmallest, logLogSlope))
            }
        }

        struct Report: Encodable {
            var bench = "scale"
            var runs: Int
            var files: Series
            var keys: Series
            var sceneStoreMaxSceneBytes: Int
        }

        func validate() throws {
            guard runs >= 1 else { throw ValidationError("--runs must be positive") }
        }

        func run() async throws {
            let scratch = try makeTemporaryDirectory("scale", in: directory)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let runs = quick ? 1 : self.runs
            let fileSizes = quick ? [100, 300, 1000] : [1000, 3000, 10_000]
            let keySizes = quick ? [1000, 3000, 10_000] : [10_000, 30_000, 100_000]
            let files = try await measureFiles(sizes: fileSizes, runs: runs, root: scratch.appendingPathComponent("files"))
            let keys = try await measureKeys(sizes: keySizes, runs: runs, root: scratch.appendingPathComponent("keys"))
            let report = Report(runs: runs, files: files, keys: keys,
                                sceneStoreMaxSceneBytes: ColdRestoreFigures.sceneStoreConfiguration.limits.maxSceneBytes)
            if json {
                emit(try jsonLine(report))
                return
            }
            files.print("root of N one-key scene files: fresh registry + sceneIDs() + one store read + close (median of \(runs))")
            keys.print("scene of N keys: fresh registry + store(for:) + one value read + close (median of \(runs))")
            emit("  the app's default configuration without a file watcher, maxSceneBytes raised to \(report.sceneStoreMaxSceneBytes >> 20) MiB")
        }

        /// One root grown to each size in turn; a fresh registry lists it.
        private func measureFiles(sizes: [Int], runs: Int, root: URL) async throws -> Series {
            let writer = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .none))
            var created = 0
            var totals: [Double] = []
            for size in [0] + sizes {
                for scene in created..<size {
                    let store = try await writer.store(for: "s\(scene)")
                    try store.set("value number \(scene)", forKey: "key0")
                    try await store.flush()
                }
                created = size
                totals.append(try await medianMs(runs: runs) {
                    let registry = try await SceneRegistry(root: root, configuration: Self.reading)
                    let count = try await registry.sceneIDs().count
                    let value = try await registry.store(for: "s0").value(forKey: "key0", as: String.self)
                    try await registry.close()
                    guard count == size, size == 0 || value == "value number 0" else { throw failure("listed \(count) of \(size) scenes") }
                })
            }
            try await writer.close()
            return Series(item: "files", sizes: sizes, baselineMs: totals[0], medianMs: Array(totals.dropFirst()))
        }

        /// One scene per size; a fresh registry loads it.
        private func measureKeys(sizes: [Int], runs: Int, root: URL) async throws -> Series {
            var writing = ColdRestoreFigures.sceneStoreConfiguration
            (writing.savePolicy, writing.watcher) = (.onFlush, .none)
            let writer = try await SceneRegistry(root: root, configuration: writing)
            var totals: [Double] = []
            for size in [1] + sizes {
                let store = try await writer.store(for: "k\(size)")
                for key in 0..<size { try store.set("value number \(key)", forKey: "key\(key)") }
                try await store.flush()
                totals.append(try await medianMs(runs: runs) {
                    let registry = try await SceneRegistry(root: root, configuration: Self.reading)
                    let value = try await registry.store(for: "k\(size)").value(forKey: "key\(size - 1)", as: String.self)
                    try await registry.close()
                    guard value == "value number \(size - 1)" else { throw failure("scene k\(size) lost its last key") }
                })
            }
            try await writer.close()
            return Series(item: "keys", sizes: sizes, baselineMs: totals[0], medianMs: Array(totals.dropFirst()))
        }

        /// The app's default configuration without a file watcher, the
        /// scene limit raised as for cold restore.
        private static var reading: SceneRegistry.Configuration {
            var configuration = ColdRestoreFigures.sceneStoreConfiguration
            configuration.watcher = .none
            return configuration
        }

        private func medianMs(runs: Int, _ body: () async throws -> Void) async throws -> Double {
            var samples: [Double] = []
            for _ in 0..<runs {
                let start = monotonicNanoseconds()
                try await body()
                samples.append(Double(monotonicNanoseconds() - start) / 1_000_000)
            }
            return Bench.median(samples)
        }
    }
}
