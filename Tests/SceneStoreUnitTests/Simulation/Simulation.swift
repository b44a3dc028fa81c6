import Foundation
@testable import SceneStore
import SceneStoreTesting

/// One seed's world and workload: three registries (three processes: their
/// own descriptors, so their OFD locks exclude each other) over one
/// ``SimulatedFileSystem`` and its inotify, and the model of what the disk
/// may hold.
struct Simulation {
    let seed: UInt64
    var random: UInt64
    let system: SimulatedFileSystem
    let root = URL(fileURLWithPath: "/home/user/scenes")
    /// inotify simulated, and a clock that never moves, so that no timer (a
    /// failed save's retry) runs between the steps: the steps alone make
    /// the calls, and one seed gives one trace.
    let configuration: SceneRegistry.Configuration = {
        var configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .automatic)
        configuration.clock = ManualClock()
        // The faults' warnings are the point of the run: printed only with
        // SIMULATION_LOG set (each with the process that logged it).
        configuration.logger.logLevel = ProcessInfo.processInfo.environment["SIMULATION_LOG"] != nil ? .debug : .critical
        return configuration
    }()
    static let keys = (0..<4).map { "k\($0)" }
    /// The model's value of a key that is not there.
    static let absent = -1

    /// What the disk must hold: per key, the value of the last save that
    /// returned, and the values of saves that failed after it (or of a
    /// background write a reload made) and so may be there instead.
    var saved: [String: Int] = [:]
    var maybe: [String: Set<Int>] = [:]
    var trace: [String] = []
    var commits = 0

    struct Process {
        var registry: SceneRegistry
        var store: SceneStore
        /// Set or removed since this process's last save that returned.
        var pending: [String: Int] = [:]
        /// What a failed `update` may have left for the next save.
        var retained: [String: Int] = [:]
    }

    struct Run {
        let problems: [String]
        let trace: [String]
        let faults: [String]
        /// Saves that returned (flushes, updates, discards, quits).
        let commits: Int
        /// FNV-1a of the trace and the faults (which calls failed).
        var traceHash: UInt64 {
            (trace + faults).joined(separator: "\n").utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
    }

    init(seed: UInt64, lyingSync: Bool = false, lossyInotify: Bool = false) {
        self.seed = seed
        random = seed
        system = SimulatedFileSystem(seed: seed ^ 0x5eed, lyingSync: lyingSync, lossyInotify: lossyInotify)
    }

    mutating func draw(_ bound: Int) -> Int { Int(splitMix(&random) % UInt64(bound)) }

    mutating func run() async throws -> Run {
        system.failCall(1 + draw(150))
        var processes: [Process] = []
        for index in 0..<3 { processes.append(try await launch(index)) }
        for step in 1...(30 + draw(50)) {
            // What the last step started (a reload after a save) ends first.
            for index in processes.indices { await settle(&processes[index]) }
            system.unlinkDeferred()
            let index = draw(3)
            switch draw(14) {
            case 0..<5: edit(&processes[index], index, step, remove: draw(5) == 0)
            case 5..<8:
                let succeeded = await save(&processes[index]) { try await $0.store.flush() }
                trace.append("p\(index) flush \(succeeded ? "ok" : "failed")")
            case 8: await update(&processes[index], index)
            case 9..<12:
                let delivery = SimulatedFileSystem.Delivery.allCases[draw(SimulatedFileSystem.Delivery.allCases.count)]
                await deliver(delivery, &processes)
                trace.append("events \(delivery)")
            case 12: await discard(&processes[index], index)
            default:
                let ending = draw(3)
                if ending == 2 {
                    // Mid-run, right after a failed sync, a record may be torn.
                    try await powerLoss(&processes)
                    continue
                }
                if ending == 0 {
                    processes[index].registry.abandon()
                    trace.append("p\(index) crashed, \(processes[index].pending.count) unsaved")
                } else {
                    let succeeded = await save(&processes[index]) { try await $0.registry.close() }
                    trace.append("p\(index) quit \(succeeded ? "ok" : "failed")")
                    if !succeeded { processes[index].registry.abandon() }
                }
                processes[index] = try await launch(index)
            }
        }
        system.stopFaults()
        var problems = await converge(&processes)
        for process in processes { process.registry.abandon() }
        if draw(2) == 0 {
            let mode = SimulatedFileSystem.KillMode.allCases[draw(SimulatedFileSystem.KillMode.allCases.count)]
            system.powerLoss(mode)
            trace.append("power loss, \(mode)")
        }
        problems += try await check()
        return Run(problems: problems, trace: trace, faults: system.firedFaults, commits: commits)
    }

    // MARK: Steps

    mutating func edit(_ process: inout Process, _ index: Int, _ step: Int, remove: Bool) {
        let key = Self.keys[draw(Self.keys.count)]
        if remove {
            process.store.removeValue(forKey: key)
            process.pending[key] = Self.absent
            trace.append("p\(index) remove \(key)")
            return
        }
        do {
            try process.store.set(step, forKey: key)
            process.pending[key] = step
            trace.append("p\(index) set \(key)=\(step)")
        } catch {
            trace.append("p\(index) set \(key)=\(step) refused: \(error)")
        }
    }

    mutating func update(_ process: inout Process, _ index: Int) async {
        let key = Self.keys[draw(Self.keys.count)]
        // Only over a value the model knows and nothing pending.
        guard process.pending.isEmpty, process.retained.isEmpty, maybe[key, default: []].isEmpty else { return }
        let next = max(saved[key] ?? 0, 0) + 1
        do {
            let value = try await process.store.update(SceneKey<Int>(key, default: 0)) { $0 += 1 }
            saved[key] = value
            commits += 1
            trace.append("p\(index) update \(key) -> \(value)")
        } catch {
            // A failed save leaves its value in memory for the next save
            // (as documented); a failed read leaves none.
            process.retained[key] = next
            maybe[key, default: []].insert(next)
            trace.append("p\(index) update \(key) failed")
        }
    }

    /// A discard that returns removes every key and drops the process's
    /// edits made before it; other processes keep theirs (they save them
    /// as a new scene). One that fails may have removed the file.
    mutating func discard(_ process: inout Process, _ index: Int) async {
        do {
            try await process.registry.discard("main")
            for key in Self.keys {
                saved[key] = Self.absent
                maybe[key] = []
            }
            process.pending = [:]
            process.retained = [:]
            commits += 1
            trace.append("p\(index) discard ok")
        } catch {
            for key in Self.keys { maybe[key, default: []].insert(Self.absent) }
            trace.append("p\(index) discard failed")
        }
    }

    /// Delivers each watch's queued events, the watches in an order the seed
    /// draws, and waits after each event for what it started: one store
    /// runs at a time, so one seed gives one interleaving (and no lock is
    /// waited for on a clock that never moves).
    mutating func deliver(_ delivery: SimulatedFileSystem.Delivery, _ processes: inout [Process]) async {
        var tokens = system.watchesWithEvents
        while !tokens.isEmpty {
            guard let (handler, events) = system.takeEvents(delivery, of: tokens.remove(at: draw(tokens.count))) else { continue }
            for event in events {
                handler(event)
                for index in processes.indices { await settle(&processes[index]) }
                system.unlinkDeferred()
            }
        }
    }


    /// Waits until the store has carried out what the events asked (its
    /// reloads, and the saves a reload makes when the file ended); the
    /// edits such a save wrote are on the disk, unacknowledged.
    mutating func settle(_ process: inout Process) async {
        let store = process.store
        repeat { await store.io.run {} } while store.state.withLock { $0.reloadQueued }
        let stillPending = store.state.withLock { Set($0.pending.keys) }
        for (key, value) in process.pending where !stillPending.contains(key) {
            process.pending[key] = nil
            maybe[key, default: []].insert(value)
        }
        for (key, value) in process.retained where !stillPending.contains(key) {
            process.retained[key] = nil
            maybe[key, default: []].insert(value)
        }
    }

    /// The power fails under every process (the disk as a kill mode the
    /// seed draws leaves it), and each starts again.
    mutating func powerLoss(_ processes: inout [Process]) async throws {
        for process in processes { process.registry.abandon() }
        let mode = SimulatedFileSystem.KillMode.allCases[draw(SimulatedFileSystem.KillMode.allCases.count)]
        system.powerLoss(mode)
        trace.append("power loss, \(mode)")
        for index in processes.indices { processes[index] = try await launch(index) }
    }

    /// A process started on the root, retried once when the fault hit its start.
    mutating func launch(_ index: Int) async throws -> Process {
        for attempt in 0..<2 {
            do {
                var configuration = configuration
                configuration.logger[metadataKey: "process"] = "p\(index)"
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

    // MARK: Checks

    /// With the faults gone, every process flushes, then hears the others'
    /// saves: each must then show the same values (inotify, dropping and
    /// merging as it may, must not leave one behind).
    mutating func converge(_ processes: inout [Process]) async -> [String] {
        for index in processes.indices {
            let succeeded = await save(&processes[index]) { try await $0.store.flush() }
            if !succeeded { return ["p\(index) could not flush once the faults stopped"] }
        }
        var rounds = 0
        while system.eventsQueued, rounds < 10 {
            await deliver(.each, &processes)
            rounds += 1
        }
        let views = processes.map { $0.store.snapshot }
        return views.indices.dropFirst().compactMap { index in
            views[index] == views[0] ? nil : "p\(index) did not converge: \(Self.describe(views[index])) where p0 shows \(Self.describe(views[0]))"
        }
    }

    static func describe(_ values: [String: SceneValue]) -> String {
        values.keys.sorted().map { "\($0)=\(values[$0].map { "\($0)" } ?? "")" }.joined(separator: " ")
    }

    /// What a fresh registry reads that the model does not allow.
    func check() async throws -> [String] {
        let registry = try await SceneRegistry(root: root, configuration: configuration, system: system)
        defer { registry.abandon() }
        let store = try await registry.store(for: "main")
        var problems: [String] = []
        if let quarantined = store.lastQuarantined { problems.append("quarantined: \(quarantined)") }
        for key in Self.keys {
            let read = store.value(forKey: key, as: Int.self) ?? Self.absent
            let allowed = maybe[key, default: []].union([saved[key] ?? Self.absent])
            if !allowed.contains(read) {
                problems.append("\(key) reads \(read); saved \(saved[key] ?? Self.absent), maybe \(maybe[key, default: []].sorted())")
            }
        }
        return problems
    }
}
