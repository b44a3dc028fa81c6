import ArgumentParser
import SceneStore
import ScenesCLIKit

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the scenes that have state.", discussion: "Reads only: creates nothing.")

    @OptionGroup var rootOptions: RootOptions
    @Flag(help: "Print one JSON array of {scene, generation, keys}.") var json = false

    func run() async throws {
        let registry = try rootOptions.openRegistry(access: .readOnly)
        let ids = try await registry.sceneIDs()
        if json {
            struct Entry: Encodable { let scene: String; let generation: UInt64; let keys: Int }
            var entries: [Entry] = []
            for id in ids {
                let store = try await registry.store(for: id)
                entries.append(Entry(scene: id.rawValue, generation: store.generation, keys: store.snapshot.count))
            }
            emit(try jsonLine(entries))
        } else {
            for id in ids { emit(id.rawValue) }
        }
        try await registry.close()
    }
}
