import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// `bench memory`: the memory figures of `bench compare` alone.
    struct Memory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Memory per open 100-key scene, and of one large scene, against their files.")

        @Option(help: "100-key scenes the child opens.") var scenes = 200
        @Option(help: "Keys of the large scene.") var largeKeys = 100_000
        @Option(help: "Fresh processes; the median is reported.") var runs = 3
        @Flag(help: "Print one JSON line instead of the table.") var json = false
        @Option(help: "Where to create the benchmark's temporary directory.") var directory: String?

        func run() async throws {
            let scratch = try makeTemporaryDirectory("memory", in: directory)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let figures = try await MemoryFigures.measure(scenes: scenes, largeKeys: largeKeys, runs: runs, in: scratch)
            if json { emit(try jsonLine(figures)) } else { figures.printTable() }
        }
    }

    /// Memory per open scene: a fresh process (`bench memory-child`) opens
    /// `scenes` 100-key scenes with the app's default configuration and
    /// reads VmRSS and VmHWM from /proc/self/status before the registry,
    /// after the first store and after the last. Per scene is the growth
    /// from the first store to the last over the scenes after the first,
    /// so the registry's own cost (watcher thread, first allocations) is
    /// apart. Then it opens one scene of `largeKeys` keys: its cost is the
    /// growth its store brought, and its peak the high-water mark over
    /// the resident size before it, both against its file's size.
    struct MemoryFigures: Encodable {
        var scenes: Int
        var keysPerScene: Int
        var runs: Int
        /// Bytes of one scene file: what the scene holds on disk.
        var fileBytesPerScene: Int
        /// Medians over runs, in bytes.
        var rssPerScene: Double
        var hwmPerScene: Double
        /// The registry and its first store, VmRSS growth.
        var rssRegistryAndFirstScene: Double
        /// VmRSS per scene once each has saved one change of its own (its
        /// encoder and the document it wrote are held too), bytes.
        var rssPerSceneAfterASave: Double
        /// The large scene: keys, its file's bytes, and its store's VmRSS
        /// growth and peak (medians, bytes).
        var largeKeys: Int
        var largeFileBytes: Int
        var largeRSS: Double
        var largeHWM: Double

        static let keys = 100
        static let largeScene = "large"

        static func measure(scenes: Int, largeKeys: Int, runs: Int, in scratch: URL) async throws -> MemoryFigures {
            let root = scratch.appendingPathComponent("memory-scenes")
            let registry = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .none))
            for scene in 0..<scenes {
                let store = try await registry.store(for: "m\(scene)")
                for key in 0..<keys { try store.set("value number \(key)", forKey: "key\(key)") }
            }
            let large = try await registry.store(for: largeScene)
            for key in 0..<largeKeys { try large.set("value number \(key)", forKey: "key\(key)") }
            try await registry.close()
            func fileSize(_ scene: String) -> Int {
                var info = stat()
                return stat(root.appendingPathComponent("\(scene).scene").path, &info) == 0 ? Int(info.st_size) : 0
            }
            var rss: [Double] = []
            var hwm: [Double] = []
            var fixed: [Double] = []
            var saved: [Double] = []
            var largeRSS: [Double] = []
            var largeHWM: [Double] = []
            for run in 0..<runs {
                // Each run on the scenes as written: the child saves to them.
                let copy = scratch.appendingPathComponent("run-\(run)")
                try FileManager.default.copyItem(at: root, to: copy)
                defer { try? FileManager.default.removeItem(at: copy) }
                let (_, output) = try timedRun(labExecutable, ["bench", "memory-child", "--root", copy.path, "--scenes", String(scenes)])
                let child = try JSONDecoder().decode(MemoryChild.Report.self, from: Data(output.utf8))
                let others = Double(max(scenes - 1, 1))
                rss.append(Double(child.afterLast.rss - child.afterFirst.rss) / others)
                hwm.append(Double(child.afterLast.hwm - child.afterFirst.hwm) / others)
                fixed.append(Double(child.afterFirst.rss - child.before.rss))
                saved.append(Double(child.afterSaves.rss - child.afterFirst.rss) / others)
                largeRSS.append(Double(child.afterLarge.rss - child.afterLast.rss))
                largeHWM.append(Double(child.afterLarge.hwm - child.afterLast.rss))
            }
            return MemoryFigures(
                scenes: scenes, keysPerScene: keys, runs: runs, fileBytesPerScene: fileSize("m0"),
                rssPerScene: Bench.median(rss), hwmPerScene: Bench.median(hwm),
                rssRegistryAndFirstScene: Bench.median(fixed), rssPerSceneAfterASave: Bench.median(saved),
                largeKeys: largeKeys, largeFileBytes: fileSize(largeScene),
                largeRSS: Bench.median(largeRSS), largeHWM: Bench.median(largeHWM))
        }

        func printTable() {
            emit("")
            emit("memory per open \(keysPerScene)-key scene (\(scenes) scenes in a fresh process, default configuration; median of \(runs) run(s))")
            emit(String(format: "  VmRSS %.0f bytes/scene, VmHWM %.0f bytes/scene (%.1fx the %d-byte scene file); registry + first scene %.0f KiB",
                        rssPerScene, hwmPerScene, rssPerScene / Double(max(fileBytesPerScene, 1)), fileBytesPerScene,
                        rssRegistryAndFirstScene / 1024))
            emit(String(format: "  after one save of its own each: VmRSS %.0f bytes/scene (%.1fx the file)",
                        rssPerSceneAfterASave, rssPerSceneAfterASave / Double(max(fileBytesPerScene, 1))))
            emit(String(format: "  one %d-key scene (a %.2f MB file): VmRSS +%.2f MB (%.2fx the file), peak +%.2f MB (%.2fx)",
                        largeKeys, Double(largeFileBytes) / 1e6, largeRSS / 1e6, largeRSS / Double(max(largeFileBytes, 1)),
                        largeHWM / 1e6, largeHWM / Double(max(largeFileBytes, 1))))
        }
    }

    /// The child of the memory benchmark: prints one JSON line of its
    /// memory before, after the first scene, after the last and after the
    /// large one.
    struct MemoryChild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "memory-child",
            abstract: "The fresh process of the memory benchmark.",
            shouldDisplay: false)

        @Option(help: "The scenes root.") var root: String
        @Option(help: "Scenes m0..m<n-1> to open.") var scenes: Int

        struct Memory: Codable {
            /// VmRSS and VmHWM, bytes.
            var rss: Int
            var hwm: Int

            /// This process's, from /proc/self/status.
            static func current() throws -> Memory {
                let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
                func kilobytes(_ field: String) -> Int? {
                    status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
                        .flatMap { Int($0.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).first ?? "") }
                }
                guard let rss = kilobytes("VmRSS"), let hwm = kilobytes("VmHWM") else {
                    throw failure("no VmRSS or VmHWM in /proc/self/status")
                }
                return Memory(rss: rss * 1024, hwm: hwm * 1024)
            }
        }

        struct Report: Codable {
            var before: Memory
            var afterFirst: Memory
            var afterLast: Memory
            var afterLarge: Memory
            /// After a set and a flush on every 100-key scene but the first.
            var afterSaves: Memory
        }

        func run() async throws {
            let before = try Memory.current()
            let registry = try await SceneRegistry(root: URL(fileURLWithPath: root, isDirectory: true))
            var stores: [SceneStore] = []
            var afterFirst = before
            for scene in 0..<scenes {
                let store = try await registry.store(for: "m\(scene)")
                guard store.value(forKey: "key0", as: String.self) != nil else { throw failure("scene m\(scene) has no key0") }
                stores.append(store)
                if scene == 0 { afterFirst = try Memory.current() }
            }
            let afterLast = try Memory.current()
            let large = try await registry.store(for: MemoryFigures.largeScene)
            guard large.value(forKey: "key0", as: String.self) != nil else { throw failure("the large scene has no key0") }
            stores.append(large)
            let afterLarge = try Memory.current()
            for store in stores.dropFirst().dropLast() {
                try store.set("saved", forKey: "key0")
                try await store.flush()
            }
            // What the saves grew, over the scenes' own (the large one's apart).
            var afterSaves = try Memory.current()
            afterSaves.rss -= afterLarge.rss - afterLast.rss
            let report = Report(
                before: before, afterFirst: afterFirst, afterLast: afterLast, afterLarge: afterLarge, afterSaves: afterSaves)
            emit(try jsonLine(report))
            withExtendedLifetime(stores) {}
            try await registry.close()
        }
    }
}
