import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// One commit that changes one value of a scene, by SceneStore and by
    /// what a user would pick instead, all measured in the same run: the
    /// disk's floor (one block in place and `fdatasync`), the floor of
    /// plain system calls (the scene's file replaced), Foundation's UserDefaults, the
    /// "PathStore" pattern (JSONEncoder + atomic Data.write), SQLite. Then,
    /// each next to its baseline: a navigation burst, cold restore in a
    /// fresh process, propagation to another process, memory per open
    /// scene and `scenes get` as a whole process.
    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "SceneStore next to the floor, UserDefaults, PathStore and SQLite: commit, burst, cold restore, propagation, memory.")

        @Option(help: "Commits per alternative, scene size and run.") var commits = 200
        @Option(help: "Runs; in each, the alternatives take turns, ten commits at a time in a shuffled order.") var runs = 3
        @Option(help: "Pushes of the navigation burst.") var pushes = 1000
        @Option(help: "Fresh processes per alternative and size (cold restore) and runs of `scenes get`.") var spawns = 15
        @Flag(help: "A smoke test: few commits, one run, small scenes (well under 30 s).") var quick = false
        @Flag(help: "Print one JSON line instead of the table.") var json = false
        @Flag(help: "Only the durable-commit table (about a minute).") var commitsOnly = false
        @Option(help: "SceneStore's save policy in the commit table: onFlush (it saves when flushed) or default (the coalescing policy apps run; each commit is a set and a flush inside its window).")
        var policy: CommitPolicy = .onFlush
        @Option(help: "Where to create the benchmark's temporary directory.") var directory: String?
        @Option(help: ArgumentHelp(
            "Only these alternatives in the commit table, comma-separated, as the table names them (default: all).",
            discussion: "With 'floor (1 block),scenestore' no alternative that writes megabytes without syncing runs between SceneStore's turns."))
        var only: String?

        struct Report: Encodable {
            var bench = "compare"
            var commits: Int
            var runs: Int
            /// Alternative -> scene size (keys) -> median over runs of the p50 commit, in microseconds.
            var p50Microseconds: [String: [String: Double]]
            /// Alternative -> scene size -> p50 over SceneStore's p50.
            var overSceneStore: [String: [String: Double]]
            /// Alternative -> scene size -> each run's p50 commit, in microseconds
            /// (the runs' spread; each run's alternatives took turns, so a run's
            /// figures share one disk).
            var runP50Microseconds: [String: [String: [Double]]]
            var durable: [String: Bool]
            /// SceneStore's commits that wrote the scene whole (compacted its log), by scene size.
            var compaction: [String: CompactionFigures]
            /// SceneStore `set` in memory (no disk), nanoseconds per set.
            /// The rest is `nil` with `--commits-only`.
            var setInMemoryNanoseconds: Double?
            var burst: BurstFigures?
            var coldRestore: ColdRestoreFigures?
            var propagation: PropagationRun.Figures?
            var memory: MemoryFigures?
            /// nil when the `scenes` executable was not built next to this one.
            var scenesGet: ScenesGetFigures?
            /// SceneStore's save policy in the commit table.
            var savePolicy = CommitPolicy.onFlush.rawValue
        }

        /// The tables' rows.
        static let order = ["floor (1 block)", "floor (append)", "floor (append, growing)", "floor (syscalls)", "scenestore", "SQLite WAL FULL", "PathStore pattern", "UserDefaults"]

        func validate() throws {
            guard commits >= 1, runs >= 1, pushes >= 1, spawns >= 1 else {
                throw ValidationError("--commits, --runs, --pushes and --spawns must be positive")
            }
        }

        func run() async throws {
            let scratch = try makeTemporaryDirectory("compare", in: directory)
            defer { try? FileManager.default.removeItem(at: scratch) }
            // UserDefaults' plists go where XDG_CONFIG_HOME pointed when this
            // process started (Foundation reads it once: a setenv here would
            // not move them, only mislead the restore children, which read it
            // afresh): suites named for this process, removed when done.
            let sizes = quick ? [1, 100] : [1, 100, 1000, 10_000]
            let commits = quick ? 20 : self.commits
            let runs = quick ? 1 : self.runs
            var runMedians: [String: [Int: [Double]]] = [:]
            var durable: [String: Bool] = [:]
            var compaction: [Int: CompactionFigures] = [:]
            for run in 0..<runs {
                for keys in sizes {
                    // The floors commit only (a burst or a cold restore of them says nothing).
                    var alternatives = commitAlternatives(sceneStore: SceneStoreAlternative(configuration: .init(savePolicy: policy.savePolicy)))
                        + [BlockFloorAlternative(), AppendFloorAlternative(), AppendFloorAlternative(growing: true)]
                    if let only {
                        let names = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                        alternatives = alternatives.filter { names.contains($0.name) }
                    }
                    alternatives.shuffle()
                    let measured = try await measureInterleaved(&alternatives, keys: keys, commits: commits, in: scratch.appendingPathComponent("r\(run)-k\(keys)"))
                    for (index, alternative) in alternatives.enumerated() {
                        let (samples, whole) = measured[index]
                        if alternative.name == "scenestore" { compaction[keys, default: CompactionFigures()].add(samples, whole: whole) }
                        runMedians[alternative.name, default: [:]][keys, default: []].append(Summary(nanoseconds: samples).p50Ms * 1000)
                        durable[alternative.name] = alternative.durable
                    }
                }
            }
            let p50 = runMedians.mapValues { bySize in
                Dictionary(uniqueKeysWithValues: bySize.map { size, medians in (String(size), Bench.median(medians)) })
            }
            let sceneStore = p50["scenestore"] ?? [:]
            let ratios = p50.mapValues { bySize in
                bySize.compactMapValues { $0 }.reduce(into: [String: Double]()) { result, entry in
                    if let base = sceneStore[entry.key], base > 0 { result[entry.key] = entry.value / base }
                }
            }
            var report = Report(
                commits: commits, runs: runs, p50Microseconds: p50, overSceneStore: ratios,
                runP50Microseconds: runMedians.mapValues { bySize in
                    Dictionary(uniqueKeysWithValues: bySize.map { size, medians in (String(size), medians) })
                },
                durable: durable,
                compaction: Dictionary(uniqueKeysWithValues: compaction.map { (String($0.key), $0.value) }))
            report.savePolicy = policy.rawValue
            if !commitsOnly {
                try await measureTheRest(into: &report, runs: runs, scratch: scratch)
            }
            if json {
                emit(try jsonLine(report))
                return
            }
            printTable(report, sizes: sizes)
            guard !commitsOnly else { return }
            report.burst?.printTable(order: Self.order)
            report.coldRestore?.printTable(sizes: Self.restoreSizes(quick: quick), order: Self.order)
            report.propagation?.printTable()
            report.memory?.printTable()
            if let scenesGet = report.scenesGet {
                scenesGet.printTable()
            } else {
                emit("")
                emit("`scenes get`: not measured, \(scenesExecutable.path) is not built (swift build --product scenes)")
            }
        }

        static func restoreSizes(quick: Bool) -> [Int] { quick ? [10, 1000] : [10, 1000, 100_000] }

        /// Everything but the commits: set in memory, the burst, cold
        /// restores, propagation, memory, `scenes get`.
        private func measureTheRest(into report: inout Report, runs: Int, scratch: URL) async throws {
            let spawns = quick ? 3 : self.spawns
            report.setInMemoryNanoseconds = try await setInMemory(in: scratch.appendingPathComponent("memory"))
            report.burst = try await BurstFigures.measure(pushes: quick ? 200 : pushes, runs: runs, in: scratch)
            report.coldRestore = try await ColdRestoreFigures.measure(sizes: Self.restoreSizes(quick: quick), spawns: spawns, in: scratch)
            report.propagation = try await PropagationRun(changes: quick ? 20 : 300, keys: 100, warmup: quick ? 2 : 30)
                .figures(in: scratch.appendingPathComponent("propagation"))
            report.memory = try await MemoryFigures.measure(scenes: quick ? 20 : 200, largeKeys: quick ? 10_000 : 100_000, runs: runs, in: scratch)
            report.scenesGet = try await ScenesGetFigures.measure(runs: quick ? 5 : 50, in: scratch)
        }

        /// Commits to every alternative in turn, a few at a time in a
        /// shuffled order each round, so that each one's samples come from
        /// the whole time the run takes: the disk's speed drifts from one
        /// second to the next, and alternatives measured one after the
        /// other would each see another disk. Every alternative is prepared
        /// first, then the file system is synced: no alternative pays for
        /// the writeback another one left behind (those that do not sync
        /// leave megabytes of it at 10 000 keys).
        private func measureInterleaved(
            _ alternatives: inout [any CommitAlternative], keys: Int, commits: Int, in directory: URL
        ) async throws -> [(samples: [Int], whole: [Bool])] {
            for index in alternatives.indices {
                try await alternatives[index].prepare(keys: keys, in: directory.appendingPathComponent("\(index)"))
                for warmup in 0..<5 { try await alternatives[index].commit(-1 - warmup) }
                _ = alternatives[index].committedWhole()
            }
            sync()
            var measured = Array(repeating: (samples: [Int](), whole: [Bool]()), count: alternatives.count)
            var turns = Array(alternatives.indices)
            var done = 0
            while done < commits {
                let chunk = min(Self.commitsPerTurn, commits - done)
                turns.shuffle()
                for index in turns {
                    for offset in 0..<chunk {
                        let start = monotonicNanoseconds()
                        try await alternatives[index].commit(done + offset)
                        measured[index].samples.append(monotonicNanoseconds() - start)
                        measured[index].whole.append(alternatives[index].committedWhole())
                    }
                }
                done += chunk
            }
            for index in alternatives.indices { try await alternatives[index].finish() }
            return measured
        }

        /// Commits an alternative makes in a row before the next one's
        /// turn: enough to keep its code and data warm, as an app's
        /// commits find them.
        static let commitsPerTurn = 10

        /// Nanoseconds per `set` of a 100-key store, memory only.
        private func setInMemory(in root: URL) async throws -> Double {
            let registry = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .polling(interval: .seconds(3600))))
            let store = try await registry.store(for: "memory")
            let count = 200_000
            let start = monotonicNanoseconds()
            for index in 0..<count { try store.set(index, forKey: "key\(index % 100)") }
            let elapsed = monotonicNanoseconds() - start
            registry.abandon()
            return Double(elapsed) / Double(count)
        }

        private func printTable(_ report: Report, sizes: [Int]) {
            emit("durable commit of one change, p50 in µs (median of \(report.runs) runs x \(report.commits) commits; SceneStore's save policy: \(report.savePolicy)); x = over SceneStore")
            let header = "".padding(toLength: 24, withPad: " ", startingAt: 0)
                + sizes.map { "\($0) keys".leftPadded(to: 20) }.joined() + "   durable"
            emit(header)
            for name in Self.order {
                guard let row = report.p50Microseconds[name] else { continue }
                let cells = sizes.map { size -> String in
                    let key = String(size)
                    let value = row[key].map { String(format: "%.0f", $0) } ?? "-"
                    let ratio = report.overSceneStore[name]?[key].map { String(format: " (%.2fx)", $0) } ?? ""
                    return (value + ratio).leftPadded(to: 20)
                }
                emit(name.padding(toLength: 24, withPad: " ", startingAt: 0) + cells.joined()
                    + "   " + ((report.durable[name] ?? false) ? "yes" : "no (no fsync)"))
            }
            printSpread(report, sizes: sizes)
            CompactionFigures.printTable(report.compaction, sizes: sizes)
            if let nanoseconds = report.setInMemoryNanoseconds { emit(String(format: "SceneStore set in memory: %.0f ns", nanoseconds)) }
        }

        /// SceneStore over the 1-block floor in each run (each run's
        /// alternatives took turns on one disk, so its ratio is a pair).
        private func printSpread(_ report: Report, sizes: [Int]) {
            guard let store = report.runP50Microseconds["scenestore"], let floor = report.runP50Microseconds["floor (1 block)"] else { return }
            let cells = sizes.map { size -> String in
                let key = String(size)
                let ratios = zip(store[key] ?? [], floor[key] ?? []).map { String(format: "%.2f", $0 / $1) }
                return "\(size) keys: " + ratios.joined(separator: " ")
            }
            emit("scenestore over floor (1 block), each run: " + cells.joined(separator: "; "))
        }
    }
}

/// The save policy `bench compare` commits SceneStore under.
enum CommitPolicy: String, ExpressibleByArgument {
    case onFlush
    case `default`

    var savePolicy: SceneRegistry.SavePolicy {
        switch self {
        case .onFlush: .onFlush
        case .default: .default
        }
    }
}
