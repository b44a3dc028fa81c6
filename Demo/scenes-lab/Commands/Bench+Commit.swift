import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// What one durable commit costs: SceneStore's `set` + `flush` against
    /// two floors measured in the same run with plain system calls — the
    /// textbook atomic replace, and the same keeping the previous version
    /// alive with a hard link until after the rename (what SceneStore does,
    /// so that ext4's online discard of the old blocks is off the path).
    struct Commit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Durable commit latency: SceneStore vs. plain atomic replace.")

        @Option(help: "Commits per run and variant.") var commits = 500
        @Option(help: "Runs; variants alternate within each run.") var runs = 5
        @Option(help: "Keys in the scene (values are short strings).") var keys = 100
        @Option(help: "Directory to work in (default: a new one under $TMPDIR).") var directory: String?
        @Flag(help: "SceneStore alone, no floors (to run under a profiler).") var storeOnly = false
        @OptionGroup var watcher: WatcherOption

        func run() async throws {
            let base = try directory.map { URL(fileURLWithPath: $0) } ?? makeTemporaryDirectory()
            defer { if directory == nil { try? FileManager.default.removeItem(at: base) } }
            let payload = try samplePayload()
            var medians: [String: [Double]] = [:]
            var all: [String: [Int]] = [:]
            for run in 1...runs {
                let plain = storeOnly ? [0] : try measurePlain(in: base.appendingPathComponent("plain-\(run)"), payload: payload, keepPrevious: false)
                let linked = storeOnly ? [0] : try measurePlain(in: base.appendingPathComponent("linked-\(run)"), payload: payload, keepPrevious: true)
                let store = try await measureStore(in: base.appendingPathComponent("store-\(run)"))
                for (name, samples) in [("rename-over", plain), ("keep-previous", linked), ("scenestore", store)] {
                    medians[name, default: []].append(Summary(nanoseconds: samples).p50Ms)
                    all[name, default: []].append(contentsOf: samples)
                }
            }
            emit("durable commit, \(keys)-key scene (\(payload.count) bytes), \(commits) commits x \(runs) runs, in \(base.path)")
            emit(Summary.header)
            for name in ["rename-over", "keep-previous", "scenestore"] {
                emit(Summary(nanoseconds: all[name] ?? [0]).row(name))
            }
            let median = { (name: String) -> Double in
                let values = (medians[name] ?? [0]).sorted()
                return values[values.count / 2]
            }
            struct Report: Encodable {
                let bench = "commit"
                let runMediansMs: [String: [Double]]
                let p50Ms: [String: Double]
                /// `nil` with `--store-only` (no floor was measured).
                let keepPreviousOverRenameOver: Double?
                let sceneStoreOverRenameOver: Double?
            }
            let floor = storeOnly ? nil : median("rename-over")
            let report = Report(
                runMediansMs: medians,
                p50Ms: ["rename-over": median("rename-over"), "keep-previous": median("keep-previous"), "scenestore": median("scenestore")],
                keepPreviousOverRenameOver: floor.map { median("keep-previous") / $0 },
                sceneStoreOverRenameOver: floor.map { median("scenestore") / $0 })
            emit(try jsonLine(report))
        }

        /// The bytes of a realistic scene file.
        private func samplePayload() throws -> Data {
            var values: [String: SceneValue] = [:]
            for key in 0..<keys { values["key\(key)"] = .string("value number \(key)") }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            return try encoder.encode(values)
        }

        /// temp (O_EXCL) + write + fsync + [link previous] + rename + fsync dir [+ unlink previous later].
        private func measurePlain(in directory: URL, payload: Data, keepPrevious: Bool) throws -> [Int] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let target = directory.appendingPathComponent("scene.json").path
            let cleanup = DispatchQueue(label: "bench.cleanup")
            let dirFD = open(directory.path, O_RDONLY | O_DIRECTORY)
            guard dirFD >= 0 else { throw failure("cannot open \(directory.path)") }
            defer { close(dirFD) }
            var samples: [Int] = []
            let clock = ContinuousClock()
            for index in 0..<commits {
                let temp = directory.appendingPathComponent(".scene.tmp-\(index)").path
                let previous = directory.appendingPathComponent(".scene.prev-\(index)").path
                let start = clock.now
                let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o600)
                guard fd >= 0 else { throw failure("open \(temp) failed") }
                let written = payload.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == payload.count, fsync(fd) == 0 else { throw failure("write/fsync failed") }
                close(fd)
                let linked = keepPrevious && link(target, previous) == 0
                guard rename(temp, target) == 0, fsync(dirFD) == 0 else { throw failure("rename failed") }
                samples.append(start.duration(to: clock.now).nanoseconds)
                if linked { cleanup.async { unlink(previous) } }
            }
            cleanup.sync {}
            return samples
        }

        /// `set` + `flush` on a store holding `keys` keys.
        private func measureStore(in root: URL) async throws -> [Int] {
            // A scene left by an earlier run (of other --keys) is not this run's scene.
            try? FileManager.default.removeItem(at: root)
            let registry = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: watcher.preference))
            let store = try await registry.store(for: "bench")
            for key in 0..<keys { try store.set("value number \(key)", forKey: "key\(key)") }
            try await store.flush()
            var samples: [Int] = []
            let clock = ContinuousClock()
            for index in 0..<commits {
                let start = clock.now
                try store.set("value \(index)", forKey: "key0")
                try await store.flush()
                samples.append(start.duration(to: clock.now).nanoseconds)
            }
            try await registry.close()
            return samples
        }

        private func makeTemporaryDirectory() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("scenes-bench-\(getpid())")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
    }
}
