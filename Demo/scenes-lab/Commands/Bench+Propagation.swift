import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// How long a change takes to reach another process: this process sets
    /// a key to the current `CLOCK_MONOTONIC` time and flushes; a peer
    /// process (`bench propagation-peer`) subtracts that time from the
    /// moment its change stream yields the value, then acknowledges, and
    /// only then is the next change made.
    ///
    /// The floor does the same with plain system calls: write + fsync +
    /// rename of a file of the scene file's size into the watched
    /// directory; the peer blocks in `read` on a raw inotify descriptor and
    /// reads the file when `IN_MOVED_TO` arrives.
    struct Propagation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "p50/p99 latency of a change reaching another process, next to a raw inotify floor.")

        @Option(help: "Measured changes per run and per side.") var changes = 1000
        @Option(help: "Keys in the scene (each change sets one of them).") var keys = 100
        @Option(help: "Runs; each measures SceneStore, then the floor.") var runs = 1
        @Option(help: "Unmeasured changes before each measurement.") var warmup = 50
        @Option(help: "Where to create the benchmark's temporary directory (default: the temporary directory).")
        var directory: String?

        struct Report: Encodable {
            var bench = "propagation"
            var changes: Int
            var keys: Int
            var runs: Int
            var sceneStore: Summary
            var floor: Summary
            /// SceneStore over floor.
            var ratio: Ratio
            /// For the breakdown: the writer's `set` + `flush` (lock, merge,
            /// durable write, directory fsync); the peer may see the change
            /// before it returns.
            var writerFlush: Summary
            var perRun: [RunReport]
        }

        struct Ratio: Encodable {
            var p50: Double
            var p99: Double
            var mean: Double
        }

        struct RunReport: Encodable {
            var sceneStore: Summary
            var floor: Summary
        }

        func validate() throws {
            guard changes >= 1, keys >= 1, runs >= 1, warmup >= 0 else {
                throw ValidationError("--changes, --keys and --runs must be positive, --warmup not negative")
            }
        }

        func run() async throws {
            let parent = directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            let scratch = try parent.map { try Self.makeDirectory(in: $0) } ?? makeTemporaryDirectory("bench")
            defer { try? FileManager.default.removeItem(at: scratch) }

            var storeAll: [Int] = []
            var floorAll: [Int] = []
            var flushAll: [Int] = []
            var perRun: [RunReport] = []
            let measurement = PropagationRun(changes: changes, keys: keys, warmup: warmup)
            for run in 0..<runs {
                let (store, floor, flushes) = try await measurement.measure(in: scratch.appendingPathComponent("run-\(run)"))
                flushAll += flushes
                storeAll += store
                floorAll += floor
                perRun.append(RunReport(sceneStore: Summary(nanoseconds: store), floor: Summary(nanoseconds: floor)))
            }
            let sceneStore = Summary(nanoseconds: storeAll)
            let floor = Summary(nanoseconds: floorAll)
            let report = Report(
                changes: changes, keys: keys, runs: runs, sceneStore: sceneStore, floor: floor,
                ratio: Ratio(p50: sceneStore.p50Ms / floor.p50Ms, p99: sceneStore.p99Ms / floor.p99Ms,
                             mean: sceneStore.meanMs / floor.meanMs),
                writerFlush: Summary(nanoseconds: flushAll),
                perRun: perRun)

            emit("propagation: \(changes) changes x \(runs) run(s), \(keys)-key scene, another process receiving")
            emit(Summary.header)
            emit(sceneStore.row("SceneStore"))
            emit(floor.row("floor (raw)"))
            emit("ratio".padding(toLength: 16, withPad: " ", startingAt: 0)
                 + [report.ratio.p50, report.ratio.p99, report.ratio.mean]
                    .map { (String(format: "%.2f", $0) + "x").leftPadded(to: 11) }.joined())
            emit(report.writerFlush.row("  writer flush"))
            if runs > 1 {
                for (index, run) in perRun.enumerated() {
                    emit(run.sceneStore.row("  run \(index + 1) store"))
                    emit(run.floor.row("  run \(index + 1) floor"))
                }
            }
            emit(try jsonLine(report))
        }

        private static func makeDirectory(in parent: URL) throws -> URL {
            let directory = parent.appendingPathComponent("scenes-bench-\(getpid())-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory
        }
    }

    /// One measurement of `bench propagation`, SceneStore then the floor,
    /// also run, shortened, by `bench compare`.
    struct PropagationRun {
        var changes: Int
        var keys: Int
        var warmup: Int

        /// p50 and p99 of SceneStore and of the floor, as `bench compare` reports them.
        struct Figures: Encodable {
            var changes: Int
            var keys: Int
            var sceneStoreP50Ms: Double
            var sceneStoreP99Ms: Double
            var floorP50Ms: Double
            var floorP99Ms: Double
            /// Floor over SceneStore, as compare's other ratios.
            var floorOverSceneStoreP50: Double
            var floorOverSceneStoreP99: Double

            func printTable() {
                emit("")
                emit("propagation: set + flush in one process -> change stream in another, \(changes) changes, \(keys)-key scene")
                emit(String(format: "  SceneStore p50 %.3f ms, p99 %.3f ms; raw inotify floor p50 %.3f ms (%.2fx), p99 %.3f ms (%.2fx)",
                            sceneStoreP50Ms, sceneStoreP99Ms, floorP50Ms, floorOverSceneStoreP50, floorP99Ms, floorOverSceneStoreP99))
            }
        }

        func figures(in directory: URL) async throws -> Figures {
            let (store, floor, _) = try await measure(in: directory)
            let (storeSummary, floorSummary) = (Summary(nanoseconds: store), Summary(nanoseconds: floor))
            return Figures(
                changes: changes, keys: keys,
                sceneStoreP50Ms: storeSummary.p50Ms, sceneStoreP99Ms: storeSummary.p99Ms,
                floorP50Ms: floorSummary.p50Ms, floorP99Ms: floorSummary.p99Ms,
                floorOverSceneStoreP50: floorSummary.p50Ms / storeSummary.p50Ms,
                floorOverSceneStoreP99: floorSummary.p99Ms / storeSummary.p99Ms)
        }

        /// Latencies of SceneStore and of the floor, and the writer's flush
        /// times, in nanoseconds.
        func measure(in directory: URL) async throws -> (sceneStore: [Int], floor: [Int], flushes: [Int]) {
            let (store, flushes, fileSize) = try await measureSceneStore(in: directory.appendingPathComponent("scenes"))
            let floor = try measureFloor(in: directory.appendingPathComponent("raw"), fileSize: fileSize)
            return (store, floor, flushes)
        }

        /// Latencies of SceneStore changes, the writer's flush times, and
        /// the size of the scene file.
        private func measureSceneStore(in root: URL) async throws -> ([Int], [Int], Int) {
            let registry = try SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush))
            let store = try registry.store(for: Bench.sceneName)
            for key in 0..<keys { try store.set(0, forKey: "k\(key)") }
            try await store.flush()
            let peer = try PeerProcess(["bench", "propagation-peer", "--mode", "store", "--directory", root.path])
            defer { peer.stop() }
            try expectReady(peer)

            var latencies: [Int] = []
            var flushes: [Int] = []
            latencies.reserveCapacity(changes)
            for index in 0..<(warmup + changes) {
                let stamp = monotonicNanoseconds()
                try store.set(stamp, forKey: "k\(index % keys)")
                try await store.flush()
                let flushed = monotonicNanoseconds() - stamp
                let latency = try acknowledgement(from: peer, change: index)
                if index >= warmup {
                    latencies.append(latency)
                    flushes.append(flushed)
                }
            }
            try await registry.close()
            var info = stat()
            let size = stat(root.appendingPathComponent("\(Bench.sceneName).json").path, &info) == 0 ? Int(info.st_size) : 4096
            return (latencies, flushes, size)
        }

        /// Latencies of the floor: plain write + fsync + rename, raw inotify, read.
        private func measureFloor(in directory: URL, fileSize: Int) throws -> [Int] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let peer = try PeerProcess(["bench", "propagation-peer", "--mode", "raw", "--directory", directory.path])
            defer { peer.stop() }
            try expectReady(peer)

            let target = directory.appendingPathComponent(Bench.rawFileName).path
            let temp = directory.appendingPathComponent("." + Bench.rawFileName + ".tmp").path
            var latencies: [Int] = []
            latencies.reserveCapacity(changes)
            for index in 0..<(warmup + changes) {
                let stamp = monotonicNanoseconds()
                var bytes = Array("\(stamp)\n".utf8)
                bytes += [UInt8](repeating: UInt8(ascii: "x"), count: max(fileSize - bytes.count, 0))
                let fd = try syscall("open", path: temp) { open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == bytes.count, fsync(fd) == 0 else {
                    close(fd)
                    throw failure("writing \(temp) failed: errno \(errno)")
                }
                close(fd)
                try syscall("rename", path: target) { rename(temp, target) }
                let latency = try acknowledgement(from: peer, change: index)
                if index >= warmup { latencies.append(latency) }
            }
            return latencies
        }

        private func expectReady(_ peer: PeerProcess) throws {
            guard let line = peer.readLine(), line.hasPrefix("ready") else {
                throw failure("the benchmark peer did not start")
            }
        }

        /// The latency the peer measured for the change just made.
        private func acknowledgement(from peer: PeerProcess, change index: Int) throws -> Int {
            guard let line = peer.readLine(), line.hasPrefix("got "), let latency = Int(line.dropFirst(4)) else {
                throw failure("the benchmark peer did not acknowledge change \(index) within 10 s")
            }
            return latency
        }
    }

    static let sceneName = "bench"
    static let rawFileName = "bench.raw"
}
