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
        @Option(help: "Runs; each alternates a SceneStore change and a floor change.") var runs = 1
        @Option(help: "Unmeasured changes before each measurement.") var warmup = 50
        @Option(help: "The writer's save policy: onFlush (it saves when flushed) or default (the coalescing policy apps run; each change is a set and a flush inside its window).")
        var policy: CommitPolicy = .onFlush
        @Option(help: "Where to create the benchmark's temporary directory (default: the temporary directory).")
        var directory: String?

        struct Report: Encodable {
            var bench = "propagation"
            /// The writer's save policy.
            var savePolicy: String
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
            let measurement = PropagationRun(changes: changes, keys: keys, warmup: warmup, policy: policy)
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
                savePolicy: policy.rawValue, changes: changes, keys: keys, runs: runs, sceneStore: sceneStore, floor: floor,
                ratio: Ratio(p50: sceneStore.p50Ms / floor.p50Ms, p99: sceneStore.p99Ms / floor.p99Ms,
                             mean: sceneStore.meanMs / floor.meanMs),
                writerFlush: Summary(nanoseconds: flushAll),
                perRun: perRun)

            emit("propagation: \(changes) changes x \(runs) run(s), \(keys)-key scene, save policy \(policy.rawValue), another process receiving")
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
        var policy = CommitPolicy.onFlush

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
        /// times, in nanoseconds. The two alternate, one change each, so
        /// that both meet the same disk: this machine's fsync time drifts
        /// by tens of percent over seconds, which would otherwise show up
        /// in the ratio. After each change the file system settles (see
        /// ``settle(_:floor:)``), so neither side's fsync writes what the other
        /// left dirty: each change is an isolated one.
        func measure(in directory: URL) async throws -> (sceneStore: [Int], floor: [Int], flushes: [Int]) {
            let root = directory.appendingPathComponent("scenes")
            let registry = try await SceneRegistry(root: root, configuration: .init(savePolicy: policy.savePolicy))
            let store = try await registry.store(for: Bench.sceneName)
            for key in 0..<keys { try store.set(0, forKey: "k\(key)") }
            try await store.flush()
            let storePeer = try PeerProcess(["bench", "propagation-peer", "--mode", "store", "--directory", root.path])
            defer { storePeer.stop() }
            try expectReady(storePeer)

            var info = stat()
            let scenePath = root.appendingPathComponent("\(Bench.sceneName).scene").path
            let fileSize = stat(scenePath, &info) == 0 ? Int(info.st_size) : 4096
            let floor = try RawFloor(directory: directory.appendingPathComponent("raw"), fileSize: fileSize)
            let floorPeer = try PeerProcess(["bench", "propagation-peer", "--mode", "raw", "--directory", floor.directory])
            defer { floorPeer.stop() }
            try expectReady(floorPeer)

            var latencies: [Int] = []
            var flushes: [Int] = []
            var floorLatencies: [Int] = []
            for index in 0..<(warmup + changes) {
                let stamp = monotonicNanoseconds()
                try store.set(stamp, forKey: "k\(index % keys)")
                try await store.flush()
                let flushed = monotonicNanoseconds() - stamp
                let latency = try acknowledgement(from: storePeer, change: index)
                try await settle(root, floor: floor.directory)
                try floor.replace(stamp: monotonicNanoseconds())
                let floorLatency = try acknowledgement(from: floorPeer, change: index)
                try await settle(root, floor: floor.directory)
                if index >= warmup {
                    latencies.append(latency)
                    flushes.append(flushed)
                    floorLatencies.append(floorLatency)
                }
            }
            try await registry.close()
            return (latencies, floorLatencies, flushes)
        }

        /// Waits, unmeasured, until the store has unlinked the previous
        /// version (it does so after a save, off the save's path), then
        /// fsyncs both directories: the metadata that unlink (or the floor's
        /// rename over its old file) dirtied is not written by the next
        /// change's fsync, store or floor.
        private func settle(_ root: URL, floor: String) async throws {
            let deadline = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < deadline,
                  let names = try? FileManager.default.contentsOfDirectory(atPath: root.path),
                  names.contains(where: { $0.contains("~prev-") || $0.contains("~tmp-") }) {
                try await Task.sleep(for: .microseconds(50))
            }
            for directory in [root.path, floor] {
                let fd = try syscall("open", path: directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
                defer { close(fd) }
                try syscall("fsync", path: directory) { fsync(fd) }
            }
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

    /// The floor's writer: plain write + fsync + rename of a file of the
    /// scene file's size, whose first line is the stamp.
    struct RawFloor {
        let directory: String
        let target: String
        let temp: String
        let fileSize: Int

        init(directory: URL, fileSize: Int) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.directory = directory.path
            target = directory.appendingPathComponent(Bench.rawFileName).path
            temp = directory.appendingPathComponent("." + Bench.rawFileName + ".tmp").path
            self.fileSize = fileSize
        }

        func replace(stamp: Int) throws {
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
        }
    }

    static let sceneName = "bench"
    static let rawFileName = "bench.raw"
}
