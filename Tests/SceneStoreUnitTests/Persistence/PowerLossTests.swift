import Foundation
@testable import SceneStore
import Testing

/// The production storage over ``SimulatedFileSystem``: a store sets and
/// flushes keys (values of up to 2 KiB alongside, so that files are
/// compacted), the power fails after the last step, and a relaunch must
/// read every key at least as new as the last flush that returned, and
/// never a value nobody wrote. Each seed draws the steps and the kill mode;
/// a failure names its seed. A disk that acknowledges syncs and keeps
/// nothing must be caught within the same seeds: the check can fail.
@Suite struct PowerLossTests {
    static let seeds: Range<UInt64> = 0..<100

    @Test func noAcknowledgedWriteIsLostToAPowerLoss() async throws {
        for seed in Self.seeds {
            let problems = try await Self.run(seed: seed)
            #expect(problems.isEmpty, "seed \(seed): \(problems)")
        }
    }

    @Test func aDiskThatAcknowledgesSyncsAndKeepsNothingIsCaught() async throws {
        var caught: UInt64?
        for seed in Self.seeds where caught == nil {
            if try await !Self.run(seed: seed, lyingSync: true).isEmpty { caught = seed }
        }
        #expect(caught != nil, "no seed saw the lost writes of a disk that drops what it acknowledged")
    }

    /// Regression: the root a first launch made was never synced into its
    /// parent (`mkdir` without the parent's `fsync`), so a power loss
    /// could take the root and every scene in it, however well each file
    /// was synced. Every seed of the test above lost every key to it.
    @Test func theRootAFirstLaunchMadeSurvivesAPowerLoss() async throws {
        let read = try await Self.afterAPowerLoss { system, store in
            try store.set(1, forKey: "k")
            try await store.flush()
        }
        #expect(read == 1)
    }

    /// Regression (the simulation's seed 116): the root's `fsync` after the
    /// first save's rename failed, that save threw, and the next flush found
    /// its values already in the file and returned without a sync; the
    /// scene file's name was never durable, so a power loss took every key.
    /// A save (an append, or a transaction that writes nothing) after a
    /// failed directory sync now syncs the directory before it returns.
    @Test(arguments: [false, true])
    func aSaveAfterAFailedDirectorySyncSurvivesAPowerLoss(_ setsAgain: Bool) async throws {
        let read = try await Self.afterAPowerLoss { system, store in
            try store.set(1, forKey: "k")
            system.failNextDirectorySync()
            await #expect(throws: SceneStoreError.self) { try await store.flush() }
            if setsAgain { try store.set(2, forKey: "k") }
            try await store.flush()
        }
        #expect(read == (setsAgain ? 2 : 1))
    }

    /// Regression (the simulation's seeds 1428, 223): an append's
    /// `fdatasync` failed and the flush threw; the next flush (or another
    /// process's) found the record already in the file and wrote nothing,
    /// or appended after it. Linux marks the pages of a failed writeback
    /// clean, so no later sync writes them: a power loss took the record
    /// and every record after it. Now the writer, still holding the lock,
    /// writes the scene whole at once (one failed sync: the flush
    /// succeeds); when that fails too, the scene's next transaction does
    /// it before it returns, and no commit appends meanwhile.
    @Test(arguments: [(1, false), (2, false), (2, true)])
    func aSaveAfterAFailedFileSyncSurvivesAPowerLoss(_ failures: Int, _ setsAgain: Bool) async throws {
        let read = try await Self.afterAPowerLoss { system, store in
            try store.set(1, forKey: "k")
            try await store.flush()
            try store.set(2, forKey: "k")
            system.failNextFileSyncs(failures)
            if failures == 1 {
                try await store.flush()
            } else {
                await #expect(throws: SceneStoreError.self) { try await store.flush() }
            }
            if setsAgain { try store.set(3, forKey: "k") }
            try await store.flush()
        }
        #expect(read == (setsAgain ? 3 : 2))
    }

    /// Runs `steps` on scene "main" of a first launch on a simulated disk,
    /// loses the power (`dropAll`), and reads key "k" as a relaunch does.
    private static func afterAPowerLoss(
        _ steps: (SimulatedFileSystem, SceneStore) async throws -> Void
    ) async throws -> Int {
        let system = SimulatedFileSystem(seed: 1)
        let root = URL(fileURLWithPath: "/home/user/scenes")
        let configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none)
        let registry = try await SceneRegistry(root: root, configuration: configuration, system: system)
        try await steps(system, try await registry.store(for: "main"))
        registry.abandon()
        system.powerLoss(.dropAll)
        let relaunched = try await SceneRegistry(root: root, configuration: configuration, system: system)
        defer { relaunched.abandon() }
        return try await relaunched.store(for: "main").value(forKey: "k", default: 0)
    }

    /// One seed's run: what the relaunch read that contradicts what was
    /// acknowledged or written.
    static func run(seed: UInt64, lyingSync: Bool = false) async throws -> [String] {
        var random = seed
        let system = SimulatedFileSystem(seed: seed, lyingSync: lyingSync)
        let root = URL(fileURLWithPath: "/home/user/scenes")
        let configuration = SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none)
        var written: [String: Int] = [:]
        var acknowledged: [String: Int] = [:]
        let registry = try await SceneRegistry(root: root, configuration: configuration, system: system)
        let store = try await registry.store(for: "main")
        for step in 1...(10 + Int(splitMix(&random) % 40)) {
            let key = "k\(splitMix(&random) % 5)"
            try store.set(step, forKey: key)
            try store.set(String(repeating: "x", count: Int(splitMix(&random) % 2048)), forKey: "pad")
            written[key] = step
            if splitMix(&random) % 3 != 0 {
                try await store.flush()
                acknowledged = written
            }
        }
        registry.abandon()
        let modes = SimulatedFileSystem.KillMode.allCases
        let mode = modes[Int(splitMix(&random) % UInt64(modes.count))]
        system.powerLoss(mode)

        let relaunched = try await SceneRegistry(root: root, configuration: configuration, system: system)
        let reread = try await relaunched.store(for: "main")
        var problems: [String] = []
        for (key, value) in acknowledged.sorted(by: { $0.key < $1.key }) {
            let read = reread.value(forKey: key, default: 0)
            if read < value { problems.append("\(mode): \(key) was \(value) when a flush returned, reads \(read)") }
        }
        for (key, read) in reread.snapshot where key != "pad" {
            if case .int(let value) = read, value > written[key, default: 0] {
                problems.append("\(mode): \(key) reads \(value), never written")
            }
        }
        try await relaunched.close()
        return problems
    }
}
