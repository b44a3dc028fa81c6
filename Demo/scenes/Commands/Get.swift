import ArgumentParser
import SceneStore

struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print one value the way `set` takes it.",
        discussion: "Bool as true/false, numbers in decimal, URL as its absolute string, Data as base64. Exit status 1 if the key is absent."
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @OptionGroup var keyArgument: KeyArgument

    func run() async throws {
        let id = try sceneOption.sceneID()
        let registry = try rootOptions.openRegistry()
        guard let value = try registry.store(for: id).snapshot[keyArgument.key] else {
            throw keyArgument.missing(in: id)
        }
        emit(value.description)
        try await registry.close()
    }
}
