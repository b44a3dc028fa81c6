import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// Three simulated processes (a registry each) over one
/// ``SimulatedFileSystem``, running a workload the seed draws: sets,
/// flushes, `update`s, crashes and relaunches, quits; one fallible system
/// call the seed picks fails (a full disk, an I/O error, the open-file
/// limit, a short write, a failed sync); in half the seeds the power fails
/// at the end. A fresh registry must then read, for every key, the value of
/// the last save that returned, or one whose save failed after it (a
/// failed save may have reached the disk), and no file may be quarantined.
///
/// `SIMULATION_SEED=N swift test --filter SimulationTests` replays seed N
/// alone and prints its trace and the trace's hash; `SIMULATION_SEEDS=A-B`
/// runs that range.
@Suite struct SimulationTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["SIMULATION_SEED"].flatMap(UInt64.init) { return [seed] }
        if let range = environment["SIMULATION_SEEDS"], let dash = range.firstIndex(of: "-"),
           let low = UInt64(range[..<dash]), let high = UInt64(range[range.index(after: dash)...]), low <= high {
            return Array(low...high)
        }
        return Array(0..<300)
    }

    @Test func processesSharingASimulatedDiskLoseNoAcknowledgedWrite() async throws {
        let seeds = Self.seeds
        var faults = 0
        var kinds: [String: Int] = [:]
        var commits = 0
        let started = ContinuousClock.now
        for seed in seeds {
            var simulation = Simulation(seed: seed)
            let run = try await simulation.run()
            #expect(run.problems.isEmpty, "seed \(seed), replay: SIMULATION_SEED=\(seed) swift test --filter SimulationTests\n\(run.trace.joined(separator: "\n"))")
            faults += run.faults.count
            commits += run.commits
            for fault in run.faults {
                let kind = fault.split(separator: " ").first.map(String.init) ?? fault
                let what = fault.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                kinds["\(kind) \(what)", default: 0] += 1
            }
            if seeds.count == 1 {
                print(run.trace.joined(separator: "\n"))
                print("seed \(seed): trace hash \(String(run.traceHash, radix: 16)), faults \(run.faults)")
            }
        }
        if seeds.count > 1 {
            #expect(faults > seeds.count / 2, "too few faults fired: \(faults) in \(seeds.count) seeds")
            let elapsed = ContinuousClock.now - started
            print("simulation: \(seeds.count) seeds, \(commits) commits in \(elapsed), faults \(kinds.sorted { $0.key < $1.key })")
        }
    }

    @Test func theSameSeedGivesTheSameTrace() async throws {
        for seed in [UInt64(3), 17, 101] {
            var one = Simulation(seed: seed), other = Simulation(seed: seed)
            let first = try await one.run()
            let second = try await other.run()
            #expect(first.traceHash == second.traceHash, "seed \(seed)")
        }
    }

    @Test func aDiskThatAcknowledgesSyncsAndKeepsNothingIsCaught() async throws {
        var caught: UInt64?
        for seed in Self.seeds.prefix(300) where caught == nil {
            var simulation = Simulation(seed: seed, lyingSync: true)
            if try await !simulation.run().problems.isEmpty { caught = seed }
        }
        #expect(caught != nil, "no seed caught a disk that drops what it acknowledged")
    }
}

/// One seed's world and workload.
struct Simulation {
    let seed: UInt64
    var random: UInt64
    let system: SimulatedFileSystem
    let root = URL(fileURLWithPath: "/home/user/scenes")
    /// No watcher, and a clock that never moves, so that no timer (a failed
    /// save's retry, a re-read) runs between the steps: the steps alone
    /// make the calls, and one seed gives one trace.
    let configuration: SceneRegistry.Configuration = {
        var configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none)
        configuration.clock = ManualClock()
        // The faults' warnings are the point of the run: not printed.
        configuration.logger.logLevel = .critical
        return configuration
    }()
    static let keys = (0..<4).map { "k\($0)" }

    /// What the disk must hold: per key, the value of the last save that
    /// returned, and the values of saves that failed after it.
    var saved: [String: Int] = [:]
    var maybe: [String: Set<Int>] = [:]
    var trace: [String] = []
    var commits = 0

    struct Process {
        var registry: SceneRegistry
        var store: SceneStore
        /// Set since this process's last save that returned.
        var pending: [String: Int] = [:]
        /// What a failed `update` may have left for the next save.
        var retained: [String: Int] = [:]
    }

    struct Run {
        let problems: [String]
        let trace: [String]
        let faults: [String]
        /// Saves that returned (flushes, updates, quits).
        let commits: Int
        /// FNV-1a of the trace and the faults (which calls failed).
        var traceHash: UInt64 {
            (trace + faults).joined(separator: "\n").utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
    }

    init(seed: UInt64, lyingSync: Bool = false) {
        self.seed = seed
        random = seed
        system = SimulatedFileSystem(seed: seed ^ 0x5eed, lyingSync: lyingSync)
    }

    mutating func draw(_ bound: Int) -> Int { Int(splitMix(&random) % UInt64(bound)) }

    mutating func run() async throws -> Run {
        system.failCall(1 + draw(150))
        var processes: [Process] = []
        for _ in 0..<3 { processes.append(try await launch()) }
        for step in 1...(30 + draw(50)) {
            // A replaced version is unlinked on the library's cleanup queue;
            // waited for, so that a launch's listing of the root never races it.
            await withCheckedContinuation { done in SceneDirectory.cleanupQueue.async { done.resume() } }
            let index = draw(3)
            switch draw(10) {
            case 0..<5:
                let key = Self.keys[draw(Self.keys.count)]
                do {
                    try processes[index].store.set(step, forKey: key)
                    processes[index].pending[key] = step
                    trace.append("p\(index) set \(key)=\(step)")
                } catch {
                    trace.append("p\(index) set \(key)=\(step) refused: \(error)")
                }
            case 5..<8:
                let succeeded = await save(&processes[index]) { try await $0.store.flush() }
                trace.append("p\(index) flush \(succeeded ? "ok" : "failed")")
            case 8:
                let key = Self.keys[draw(Self.keys.count)]
                // Only over a value the model knows and nothing pending.
                guard processes[index].pending.isEmpty, processes[index].retained.isEmpty, maybe[key, default: []].isEmpty
                else { continue }
                do {
                    let value = try await processes[index].store.update(SceneKey<Int>(key, default: 0)) { $0 += 1 }
                    saved[key] = value
                    commits += 1
                    trace.append("p\(index) update \(key) -> \(value)")
                } catch {
                    // A failed save leaves its value in memory for the next
                    // save (as documented); a failed read leaves none.
                    processes[index].retained[key] = saved[key, default: 0] + 1
                    maybe[key, default: []].insert(saved[key, default: 0] + 1)
                    trace.append("p\(index) update \(key) failed")
                }
            default:
                if draw(2) == 0 {
                    processes[index].registry.abandon()
                    trace.append("p\(index) crashed, \(processes[index].pending.count) unsaved")
                } else {
                    let succeeded = await save(&processes[index]) { try await $0.registry.close() }
                    trace.append("p\(index) quit \(succeeded ? "ok" : "failed")")
                    if !succeeded { processes[index].registry.abandon() }
                }
                processes[index] = try await launch()
            }
        }
        for process in processes { process.registry.abandon() }
        system.stopFaults()
        if draw(2) == 0 {
            let mode = SimulatedFileSystem.KillMode.allCases[draw(2)]
            system.powerLoss(mode)
            trace.append("power loss, \(mode)")
        }
        return Run(problems: try await check(), trace: trace, faults: system.firedFaults, commits: commits)
    }

    /// A process started on the root, retried once when the fault hit its start.
    mutating func launch() async throws -> Process {
        for attempt in 0..<2 {
            do {
                let registry = try await SceneRegistry(root: root, configuration: configuration, system: system)
                return Process(registry: registry, store: try await registry.store(for: "main"))
            } catch where attempt == 0 {
                trace.append("launch failed: \(error)")
            }
        }
        throw SceneStoreError.storageUnavailable(location: root.path, reason: "no launch")
    }

    /// Runs `body` (a flush, a quit) and books what it saved: the process's
    /// pending values saved when it returns, possibly saved when it throws.
    mutating func save(_ process: inout Process, _ body: (Process) async throws -> Void) async -> Bool {
        do {
            try await body(process)
            for (key, value) in process.pending {
                saved[key] = value
                maybe[key] = []
            }
            for (key, value) in process.retained { maybe[key, default: []].insert(value) }
            process.pending = [:]
            process.retained = [:]
            commits += 1
            return true
        } catch {
            for (key, value) in process.pending.merging(process.retained, uniquingKeysWith: { first, _ in first }) {
                maybe[key, default: []].insert(value)
            }
            return false
        }
    }

    /// What a fresh registry reads that the model does not allow.
    func check() async throws -> [String] {
        let registry = try await SceneRegistry(root: root, configuration: configuration, system: system)
        defer { registry.abandon() }
        let store = try await registry.store(for: "main")
        var problems: [String] = []
        if let quarantined = store.lastQuarantined { problems.append("quarantined: \(quarantined)") }
        for key in Self.keys {
            let read: Int? = store.value(forKey: key, as: Int.self)
            let allowed = Set(saved[key].map { [$0] } ?? []).union(maybe[key, default: []])
            let absentAllowed = saved[key] == nil
            if let read, !allowed.contains(read) {
                problems.append("\(key) reads \(read); saved \(saved[key].map(String.init) ?? "nothing"), maybe \(maybe[key, default: []].sorted())")
            } else if read == nil, !absentAllowed {
                problems.append("\(key) is missing; saved \(saved[key] ?? 0)")
            }
        }
        return problems
    }
}
