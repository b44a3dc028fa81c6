import ArgumentParser
import SceneStore
import ScenesCLIKit

struct Discard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete a scene's state; processes that have it open see it emptied.")

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption

    func run() async throws {
        let id = try sceneOption.sceneID()
        guard try rootOptions.rootExists() else { throw noScene(id, in: try rootOptions.rootURL().path) }
        let registry = try await rootOptions.openRegistry(readOnly: false)
        try await requireScene(id, in: registry)
        try await registry.discard(id)
        try await registry.close()
    }
}
