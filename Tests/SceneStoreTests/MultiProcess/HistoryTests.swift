import Foundation
@testable import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension MultiProcess {
    /// The history check: several real processes (`scenes-lab history`)
    /// run random sets (often of a value written before), removes,
    /// updates, discards and reopens on a few keys of one scene, and one
    /// of them is killed mid-run and replaced, every fourth phase. When a phase's
    /// processes have ended, the stored state must be explained by what
    /// was acknowledged when (see `HistoryCheck`), and an observer in this
    /// process must show that state, having seen each incarnation's
    /// generations only grow. It found the stale-view loss (a set equal
    /// to what a store showed, skipped while another process had written
    /// the key since) on the code before that was fixed.
    ///
    /// `SCENESTORE_HISTORY_PHASES` and `SCENESTORE_HISTORY_OPERATIONS`
    /// make a long run (CI runs 20 phases of 3 clients x 10 operations:
    /// a lost write shows only while no later write covers it, so many
    /// short phases find more than a few long ones).
    @Suite(.serialized)
    struct HistoryTests {
        enum Storage: String, Sendable, CustomTestStringConvertible {
            case inotify, polling, postgres
            var testDescription: String { rawValue }

            static var all: [Storage] {
                #if Postgres
                [.inotify, .polling, .postgres]
                #else
                [.inotify, .polling]
                #endif
            }

            var watcherArguments: [String] {
                self == .polling ? ["--watcher", "polling", "--poll-interval-ms", "500"] : []
            }

            var watcher: WatcherPreference {
                self == .polling ? .polling(interval: .milliseconds(500)) : .automatic
            }
        }

        static let keys = ["k0", "k1", "k2"]
        static let phases = ProcessInfo.processInfo.environment["SCENESTORE_HISTORY_PHASES"].flatMap(Int.init) ?? 20
        static let operations = ProcessInfo.processInfo.environment["SCENESTORE_HISTORY_OPERATIONS"].flatMap(Int.init) ?? 10

        // Hang guard: 20 phases of 10 operations took 26 s for the three storages in its layer here, under 2 minutes a storage in the whole suite (every test at once on 2 cores); a minute and one more per 100 operations.
        @Test(.timeLimit(.minutes(1 + HistoryTests.phases * HistoryTests.operations / 100)), arguments: Storage.all)
        func everyStoredStateIsExplainedByTheHistory(_ storage: Storage) async throws {
            let place = try await StoragePlace.make(storage == .postgres ? .postgres : .files)
            let observer = try await place.registry(.init(savePolicy: .onFlush, watcher: storage.watcher))
            let watched = try await observer.store(for: "h")
            let regressions = Locked<[String]>([])
            let monitor = Self.monitorGenerations(of: watched, into: regressions)

            var history: [HistoryOperation] = []
            var kills = 0
            for phase in 0..<Self.phases {
                var clients: [(name: String, process: RunningScenes, log: LineLog)] = []
                func start(_ name: String, together: Bool = false) throws {
                    let process = try RunningScenes(
                        ["history", "--scene", "h", "--client", name, "--operations", "\(Self.operations)"]
                            + (together ? ["--wait-for-go"] : []) + storage.watcherArguments + place.arguments,
                        root: place.fixture.root, program: .lab)
                    clients.append((name, process, LineLog(process)))
                }
                // The three start their operations together, so that they
                // interleave (starting a process takes longer than a phase).
                for client in 0..<3 { try start("p\(phase)c\(client)", together: true) }
                for client in clients {
                    #expect(await client.log.next(within: .seconds(120)) { $0.hasPrefix("ready") } != nil, "\(client.name) never started")
                }
                for client in clients { client.process.send("go") }
                // Every fourth phase, kill one once it has a few acknowledged
                // operations, at a random moment of its next ones; a new
                // client takes over. (Not every phase: the fewer clients
                // run together, the fewer views go stale.)
                let victim = phase % 4 == 3 ? clients[phase / 4 % clients.count] : nil
                if let victim {
                    for _ in 0..<3 { _ = await victim.log.next(within: .seconds(120)) { $0.hasPrefix("ack ") } }
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...3_000)))
                    victim.process.kill()
                    kills += 1
                    try start("p\(phase)r")
                }

                for client in clients {
                    let status = await client.process.exitStatus(within: .seconds(300))
                    if client.name != victim?.name {
                        #expect(status == 0, "phase \(phase): \(client.name) ended with \(String(describing: status)): \(client.process.errorOutput)")
                    }
                    // Every line read: to `done`, or to the end of a killed one's output.
                    _ = await client.log.next(within: .seconds(120)) { client.name != victim?.name && $0 == "done" }
                    history += HistoryOperation.parse(client: client.name, lines: client.log.lines)
                }

                let stored = try await Self.stored(in: place)
                let violations = HistoryCheck.violations(stored: stored, keys: Self.keys, history: history)
                #expect(violations.isEmpty, "phase \(phase): \(violations.joined(separator: "\n"))")
                let seen = await Self.converge(watched, to: stored)
                #expect(seen == stored, "phase \(phase): the observer shows \(seen), the scene holds \(stored)")
            }
            monitor.cancel()
            #expect(regressions.withLock { $0 }.isEmpty, "\(regressions.withLock { $0 })")
            let acknowledged = history.filter { $0.end != nil }.count
            print("history, \(storage): \(history.count) operations (\(acknowledged) acknowledged) by \(Self.phases * 3 + kills) processes, \(kills) killed; every stored state explained")
            try await observer.close()
            await place.fixture.tearDown()
        }

        /// The scene's values now, as a fresh registry reads them.
        static func stored(in place: StoragePlace) async throws -> [String: String] {
            let reader = try await place.registry(.init(watcher: .none, readOnly: true))
            defer { reader.abandon() }
            return Self.view(of: try await reader.store(for: "h"))
        }

        static func view(of store: SceneStore) -> [String: String] {
            var view: [String: String] = [:]
            for key in keys { view[key] = store.value(forKey: key, as: String.self) }
            return view
        }

        /// Waits, update by update, until `store` shows `expected`; what it
        /// shows then (it gives up after two minutes without an update).
        /// Updates, not changes: a discard that empties the view is a
        /// `.discarded` update and no change.
        static func converge(_ store: SceneStore, to expected: [String: String]) async -> [String: String] {
            while true {
                let updates = store.updates()
                let shown = view(of: store)
                if shown == expected { return shown }
                guard await updates.first(within: .seconds(120)) != nil else { return view(of: store) }
            }
        }

        /// Records every time the store's version goes back within one
        /// incarnation (a newer incarnation starts again at 1).
        static func monitorGenerations(of store: SceneStore, into regressions: Locked<[String]>) -> Task<Void, Never> {
            let updates = store.updates()
            return Task {
                var highest: [String: UInt64] = [:]
                for await _ in updates {
                    let version = store.state.withLock { $0.disk }
                    guard let incarnation = version.incarnation else { continue }
                    if let before = highest[incarnation], version.generation < before {
                        regressions.withLock { $0.append("\(incarnation): \(before) then \(version.generation)") }
                    }
                    highest[incarnation] = max(highest[incarnation] ?? 0, version.generation)
                }
            }
        }
    }
}
