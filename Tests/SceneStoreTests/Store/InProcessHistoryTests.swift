import Foundation
@testable import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// The history check in one process, where each client is a registry of
/// its own: on a scene root in memory (`SceneStoreFixture(inMemory:)`)
/// and on one on disk. Clients run random sets (half of
/// them of a value seen before), removes, updates, discards, reopens and
/// crashes (a set left unflushed, then the registry dropped as `kill -9`
/// would) on three keys of one scene (one client watching nothing, so its
/// view goes stale), each operation stamped when it began
/// and when it returned. After each phase the stored state must be
/// explained by the history (`HistoryCheck`), an observer must show it,
/// and the observer's generations only grow within an incarnation.
///
/// `SCENESTORE_HISTORY_PHASES` and `SCENESTORE_HISTORY_OPERATIONS` make a
/// long run.
@Suite
struct InProcessHistoryTests {
    enum Medium: String, Sendable, CustomTestStringConvertible {
        case memory, files
        var testDescription: String { rawValue }
    }

    static let phases = ProcessInfo.processInfo.environment["SCENESTORE_HISTORY_PHASES"].flatMap(Int.init) ?? 250
    static let operations = ProcessInfo.processInfo.environment["SCENESTORE_HISTORY_OPERATIONS"].flatMap(Int.init) ?? 10
    static let clients = 3

    // Hang guard: 250 phases of 10 operations took 28 s in its layer here, ran into a 3-minute limit in the whole suite (298 s, every test at once on 2 cores); 3 minutes and one more per 500 operations.
    @Test(.timeLimit(.minutes(3 + InProcessHistoryTests.phases * InProcessHistoryTests.operations / 500)), arguments: [Medium.memory, .files])
    func everyStoredStateIsExplainedByTheHistory(_ medium: Medium) async throws {
        let fixture = try await SceneStoreFixture(inMemory: medium == .memory)
        let open: @Sendable (SceneRegistry.Configuration) async throws -> SceneRegistry = { configuration in
            try await SceneRegistry(root: fixture.root, configuration: configuration)
        }
        let observer = try await open(.init(savePolicy: .onFlush, watcher: .automatic))
        let watched = try await observer.store(for: "h")
        let regressions = Locked<[String]>([])
        let monitor = MultiProcess.HistoryTests.monitorGenerations(of: watched, into: regressions)

        var history: [HistoryOperation] = []
        for phase in 0..<Self.phases {
            history += try await withThrowingTaskGroup(of: [HistoryOperation].self) { group in
                for client in 0..<Self.clients {
                    let name = "p\(phase)c\(client)"
                    // The first client watches nothing (a one-shot tool): its
                    // view goes stale until it saves.
                    group.addTask { try await Self.run(client: name, watching: client != 0, open: open) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let reader = try await open(.init(watcher: .none, readOnly: true))
            let stored = await MultiProcess.HistoryTests.view(of: try reader.store(for: "h"))
            reader.abandon()
            let violations = HistoryCheck.violations(stored: stored, keys: MultiProcess.HistoryTests.keys, history: history)
            #expect(violations.isEmpty, "\(medium), phase \(phase): \(violations.joined(separator: "\n"))")
            let seen = await MultiProcess.HistoryTests.converge(watched, to: stored)
            #expect(seen == stored, "\(medium), phase \(phase): the observer shows \(seen), the scene holds \(stored)")
        }
        monitor.cancel()
        #expect(regressions.withLock { $0 }.isEmpty, "\(regressions.withLock { $0 })")
        let acknowledged = history.filter { $0.end != nil }.count
        print("history in one process, \(medium): \(history.count) operations (\(acknowledged) acknowledged); every stored state explained")
        try await observer.close()
        await fixture.tearDown()
    }

    /// One client's operations; what each wrote, and when it began and returned.
    static func run(
        client: String, watching: Bool, open: @Sendable (SceneRegistry.Configuration) async throws -> SceneRegistry
    ) async throws -> [HistoryOperation] {
        let configuration = SceneRegistry.Configuration(
            savePolicy: .onFlush, watcher: watching ? .automatic : WatcherPreference.none,
            lockTimeout: SceneRegistry.Configuration.testing.lockTimeout)
        var registry = try await open(configuration)
        var store = try await registry.store(for: "h")
        var operations: [HistoryOperation] = []
        var written: [String: [String]] = [:]
        for index in 1...Self.operations {
            let key = MultiProcess.HistoryTests.keys.randomElement() ?? "k0"
            let roll = Int.random(in: 0..<100)
            let value = "\(client).\(index)"
            let begin = Self.now()
            var kind: HistoryOperation.Kind
            var acknowledged = true
            do {
                switch roll {
                case 0..<4:
                    kind = .discard
                    try await registry.discard("h")
                case 4..<9:
                    kind = .reopen
                    try await registry.close()
                    registry = try await open(configuration)
                    store = try await registry.store(for: "h")
                case 9..<13:
                    // A set the process dies before saving: it may be lost.
                    kind = .set(key: key, value: value)
                    try store.set(value, forKey: key)
                    registry.abandon()
                    acknowledged = false
                    registry = try await open(configuration)
                    store = try await registry.store(for: "h")
                case 13..<60:
                    let again = Bool.random()
                        ? (store.value(forKey: key, as: String.self) ?? written[key]?.randomElement())
                        : nil
                    let chosen = again ?? value
                    kind = .set(key: key, value: chosen)
                    try store.set(chosen, forKey: key)
                    try await store.flush()
                case 60..<80:
                    kind = .remove(key: key)
                    store.removeValue(forKey: key)
                    try await store.flush()
                default:
                    kind = .update(key: key, value: value)
                    _ = try await store.update(forKey: key, default: "") { _ in value }
                }
            } catch {
                Issue.record("\(client)#\(index): \(error)")
                continue
            }
            if case .set(let key, let chosen) = kind { written[key, default: []].append(chosen) }
            operations.append(HistoryOperation(
                client: client, index: index, kind: kind, begin: begin, end: acknowledged ? Self.now() : nil))
            if Bool.random() { await Task.yield() }
        }
        try await registry.close()
        return operations
    }

    static func now() -> Int {
        Int(DispatchTime.now().uptimeNanoseconds)
    }
}
