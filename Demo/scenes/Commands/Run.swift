import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the three-tab navigation demo on a scene.",
        discussion: """
            On a terminal: a full-screen UI (arrows or j/k move, Enter opens, b/Left back, \
            r pop to root, s settings, 1 2 3 or Tab switch tabs, q quit). Two processes on \
            one scene mirror each other.

            With --headless, or when stdin is not a terminal: one command per line on stdin \
            (\(LineCommand.usage)) and one JSON state line per change on stdout.
            """
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @Flag(help: "Read line commands from stdin and print JSON state lines, even on a terminal.")
    var headless = false

    func run() async throws {
        let id = try sceneOption.sceneID()
        let registry = try rootOptions.openRegistry(access: .readWrite, watcher: .automatic)
        let catalog: LibraryCatalog
        do {
            catalog = try CatalogFile(root: rootOptions.rootURL()).load()
        } catch {
            throw failure("\(error)")
        }
        let persistence = await DemoPersistence(store: try registry.store(for: id), catalog: catalog)
        let signal: Int32?
        if headless || isatty(STDIN_FILENO) == 0 || isatty(STDOUT_FILENO) == 0 {
            signal = await HeadlessSession(scene: id, persistence: persistence).run()
        } else {
            do {
                signal = try await InteractiveSession(
                    scene: id, persistence: persistence, watcher: registry.watcherKind,
                    logFile: rootOptions.rootURL().appendingPathComponent("log/scenes-run.log")).run()
            } catch {
                try? await registry.close()
                throw failure("\(error)")
            }
        }
        try await registry.close()
        if let signal { throw ExitCode(128 + signal) }
    }
}
