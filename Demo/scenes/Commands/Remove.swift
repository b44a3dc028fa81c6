import ArgumentParser
import SceneStore
import ScenesCLIKit

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove one key; exit status 1 if it was absent.")

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @OptionGroup var keyArgument: KeyArgument

    func run() async throws {
        let id = try sceneOption.sceneID()
        guard try rootOptions.rootExists() else { throw keyArgument.missing(in: id) }
        let registry = try await rootOptions.openRegistry(readOnly: false, savePolicy: .onFlush)
        let store = try await registry.store(for: id)
        guard store.snapshot[keyArgument.key] != nil else {
            throw keyArgument.missing(in: id)
        }
        store.removeValue(forKey: keyArgument.key)
        try await registry.close()
    }
}
