import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

/// One writer of the crash torture: random sets, removes and discards on
/// several scenes, each flushed before the next, with a line before it
/// starts and one once it is acknowledged. The test kills writers with
/// SIGKILL at random instants and checks that nothing acknowledged is gone.
///
struct Torture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Random acknowledged writes until killed (for the crash torture test)."
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var watcherOption: WatcherOption
    @Option(help: "This writer's name; its keys are NAME-0, NAME-1, ...") var name: String
    @Option(help: "Comma-separated scene ids.") var scenes: String
    @Option(help: "Keys per scene this writer uses.") var keys = 4
    @Option(help: "Percent of operations that remove a key.") var removePercent = 10
    @Option(help: "Percent of operations that discard the scene.") var discardPercent = 2
    @Option(help: "Percent of sets that write again the value this writer last set on the key (a set equal to a view that another writer's discard or save may have made stale).")
    var repeatPercent = 0
    @Option(help: "Operations before exiting (0: until killed).") var count = 0

    func validate() throws {
        guard keys >= 1, (0...100).contains(removePercent), (0...100).contains(discardPercent),
              removePercent + discardPercent <= 100, (0...100).contains(repeatPercent) else {
            throw ValidationError("need --keys >= 1 and percentages that add up to at most 100")
        }
        _ = try sceneIDs()
    }

    func sceneIDs() throws -> [SceneID] {
        let ids = try scenes.split(separator: ",").map { try SceneID(String($0)) }
        guard !ids.isEmpty else { throw ValidationError("--scenes needs at least one id") }
        return ids
    }

    func run() async throws {
        let ids = try sceneIDs()
        let registry = try await watcherOption.openRegistry(rootOptions, savePolicy: .onFlush)
        let stores = try ids.map { try registry.blockingStore(for: $0) }
        emit("ready \(getpid())")
        // Values never shrink, so an older value on disk is a lost update.
        var sequence = 0
        var lastSet: [String: Int] = [:]
        while count == 0 || sequence < count {
            sequence += 1
            let index = Int.random(in: 0..<stores.count)
            let store = stores[index]
            let scene = ids[index].rawValue
            let key = "\(name)-\(Int.random(in: 0..<keys))"
            let roll = Int.random(in: 0..<100)
            if roll < discardPercent {
                emit("begin \(sequence) \(monotonicNanoseconds()) discard \(scene)")
                try await registry.discard(ids[index])
            } else if roll < discardPercent + removePercent {
                emit("begin \(sequence) \(monotonicNanoseconds()) remove \(scene) \(key)")
                store.removeValue(forKey: key)
                try await store.flush()
            } else {
                let again = lastSet["\(scene)/\(key)"].flatMap { Int.random(in: 0..<100) < repeatPercent ? $0 : nil }
                let value = again ?? sequence
                emit("begin \(sequence) \(monotonicNanoseconds()) set \(scene) \(key) \(value)")
                try store.set(value, forKey: key)
                try await store.flush()
                lastSet["\(scene)/\(key)"] = value
            }
            emit("ack \(sequence) \(monotonicNanoseconds())")
        }
        try await registry.close()
    }
}
