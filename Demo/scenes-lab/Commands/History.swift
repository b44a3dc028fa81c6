import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

/// One client of the history check: random operations on a few keys of
/// one scene, each reported when it begins and when it is acknowledged,
/// so that the test can ask whether the scene's final state is explained
/// by what was acknowledged when (the way Jepsen checks a database).
///
/// Every operation is acknowledged only once it is durable: a set or a
/// remove by the `flush()` after it, an update when it returns, a
/// discard when it returns. Lines, with `T` the `CLOCK_MONOTONIC`
/// nanoseconds (one clock for every process of the machine):
///
///     begin I T set KEY VALUE | begin I T remove KEY | begin I T update KEY VALUE
///     begin I T discard       | begin I T reopen
///     ack I T                 | fail I ERROR
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run random operations on a scene and report each one's begin and acknowledgement (for the history check)."
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @OptionGroup var watcherOption: WatcherOption
    @Option(help: "This client's name: its values are NAME.1, NAME.2, ...") var client: String
    @Option(help: "How many operations.") var operations = 40
    @Option(help: "How many keys (k0, k1, ...).") var keys = 3
    @Option(help: "Percent of sets that write a value seen before: the one the store shows, or one this client wrote.")
    var repeatPercent = 50
    @Option(help: "Percent of operations that discard the scene.") var discardPercent = 4
    @Option(help: "Percent of operations that close the registry and open it again.") var reopenPercent = 6
    @Option(help: "Pauses between operations are drawn from 0...MAX milliseconds.") var maxGapMs = 4
    @Flag(help: "After `ready`, wait for a line on stdin before the first operation (clients that start together).")
    var waitForGo = false

    func validate() throws {
        guard operations >= 0, keys >= 1, (0...100).contains(repeatPercent),
              discardPercent >= 0, reopenPercent >= 0, discardPercent + reopenPercent <= 50, maxGapMs >= 0 else {
            throw ValidationError("operations >= 0, keys >= 1, percents 0...100 (discard + reopen at most 50), gap >= 0")
        }
        guard !client.isEmpty, !client.contains(" ") else { throw ValidationError("--client must be a word") }
    }

    func run() async throws {
        let id = try sceneOption.sceneID()
        var registry = try await watcherOption.openRegistry(rootOptions, savePolicy: .onFlush)
        var store = try await registry.store(for: id)
        var written: [String: [String]] = [:]
        emit("ready \(getpid())")
        if waitForGo { _ = await Task.detached { readLine() }.value }
        for index in stride(from: 1, through: operations, by: 1) {
            let key = "k\(Int.random(in: 0..<keys))"
            let roll = Int.random(in: 0..<100)
            do {
                if roll < discardPercent {
                    emit("begin \(index) \(monotonicNanoseconds()) discard")
                    try await registry.discard(id)
                } else if roll < discardPercent + reopenPercent {
                    emit("begin \(index) \(monotonicNanoseconds()) reopen")
                    try await registry.close()
                    registry = try await watcherOption.openRegistry(rootOptions, savePolicy: .onFlush)
                    store = try await registry.store(for: id)
                } else if roll < 60 {
                    let again = Int.random(in: 0..<100) < repeatPercent
                        ? Self.valueSeenBefore(shown: store.value(forKey: key, as: String.self), written: written[key] ?? [])
                        : nil
                    let value = again ?? "\(client).\(index)"
                    written[key, default: []].append(value)
                    emit("begin \(index) \(monotonicNanoseconds()) set \(key) \(value)")
                    try store.set(value, forKey: key)
                    try await store.flush()
                } else if roll < 80 {
                    emit("begin \(index) \(monotonicNanoseconds()) remove \(key)")
                    store.removeValue(forKey: key)
                    try await store.flush()
                } else {
                    let value = "\(client).\(index)"
                    written[key, default: []].append(value)
                    emit("begin \(index) \(monotonicNanoseconds()) update \(key) \(value)")
                    // A read-modify-write whose result does not depend on
                    // what it read: the history names what it wrote.
                    _ = try await store.update(forKey: key, default: "") { _ in value }
                }
                emit("ack \(index) \(monotonicNanoseconds())")
            } catch {
                emit("fail \(index) \(String(describing: error).replacingOccurrences(of: "\n", with: " "))")
            }
            if maxGapMs > 0 { try await Task.sleep(for: .microseconds(Int.random(in: 0...(maxGapMs * 1000)))) }
        }
        try await registry.close()
        emit("done")
    }

    /// A value the key held before: three times in four the one this store
    /// shows (a view another process may have made stale), else one this
    /// client wrote; `nil` when there is none.
    private static func valueSeenBefore(shown: String?, written: [String]) -> String? {
        if Int.random(in: 0..<4) > 0, let shown { return shown }
        return written.randomElement()
    }
}
