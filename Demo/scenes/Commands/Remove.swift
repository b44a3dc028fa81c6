import ArgumentParser
import SceneStore

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove one key; exit status 1 if it was absent.")

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @Argument(help: "The key.") var key: String

    func validate() throws { try validateKey(key) }

    func run() async throws {
        let id = try sceneOption.sceneID()
        let registry = try rootOptions.openRegistry(savePolicy: .onFlush)
        let store = try registry.store(for: id)
        guard store.snapshot[key] != nil else {
            throw failure("no key \(key.debugDescription) in scene \(id.rawValue.debugDescription)")
        }
        store.removeValue(forKey: key)
        try await registry.close()
    }
}
