import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

/// Writes in a loop, flushing after every write: the load the multi-process
/// tests and benchmarks put on a scene.
struct Stress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write to a scene in a loop (for tests and benchmarks)."
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @OptionGroup var watcherOption: WatcherOption
    @Option(help: "How many writes (0: until killed).") var count = 100
    @Option(help: "Write distinct keys PREFIX0, PREFIX1, ... with their index as value.") var prefix: String?
    @Option(help: "Write this one key, value \"<pid>-<index>\".") var sameKey: String?
    @Option(help: "Add 1 to this Int key with an atomic update, --count times.") var increment: String?
    @Option(help: "Bytes of filler written with each write (a consistent state to check after a kill).")
    var payload = 0
    @Flag(help: "After the writes, print `view <json>` whenever this process's view changes, until stdin closes.")
    var converge = false
    @Flag(help: "With --prefix: print `ack KEY MS` or `failed KEY MS ERROR` for each write, and go on after a failed flush.")
    var report = false
    @Option(help: "Milliseconds to wait between writes.") var pause = 0

    func validate() throws {
        guard [prefix, sameKey, increment].compactMap({ $0 }).count <= 1 else {
            throw ValidationError("give at most one of --prefix, --same-key and --increment")
        }
        guard !report || prefix != nil else { throw ValidationError("--report needs --prefix") }
    }

    func run() async throws {
        let id = try sceneOption.sceneID()
        let registry = try await watcherOption.openRegistry(rootOptions, savePolicy: .onFlush)
        let store = try await registry.store(for: id)
        let pid = getpid()
        emit("ready \(pid)")
        var index = 0
        while count == 0 || index < count {
            if let increment {
                try await store.update(forKey: increment, default: 0) { $0 + 1 }
                index += 1
                continue
            }
            if let prefix, report {
                await reportWrite(index, forKey: "\(prefix)\(index)", to: store)
                index += 1
                if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
                continue
            }
            if let prefix {
                try store.set(index, forKey: "\(prefix)\(index)")
            } else if let sameKey {
                try store.set("\(pid)-\(index)", forKey: sameKey)
            } else {
                // Three keys that must always agree: a torn save would break them.
                try store.set(index, forKey: "counter")
                try store.set(index * 2, forKey: "double")
                try store.set(Data(repeating: UInt8(truncatingIfNeeded: index), count: payload), forKey: "filler")
            }
            try await store.flush()
            index += 1
        }
        if converge { await reportViews(of: store) }
        emit("done \(index)")
        try await registry.close()
    }

    /// One write and its flush, reported with how long they took: `ack`
    /// (durable) or `failed` (kept in memory; a later flush writes it).
    private func reportWrite(_ value: Int, forKey key: String, to store: SceneStore) async {
        let started = ContinuousClock.now
        func elapsed() -> Int64 {
            let took = ContinuousClock.now - started
            return took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000
        }
        do {
            try store.set(value, forKey: key)
            try await store.flush()
            emit("ack \(key) \(elapsed())")
        } catch {
            emit("failed \(key) \(elapsed()) \(error)")
        }
    }
}
