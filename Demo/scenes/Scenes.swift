import ArgumentParser
import Foundation
import Logging
import SceneStore
import ScenesCLIKit

@main
struct Scenes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenes",
        abstract: "Per-scene state that survives relaunch and stays in sync across processes.",
        discussion: """
            Scenes live in --root DIR, else $SCENES_ROOT, else \
            $XDG_STATE_HOME/scenes/scenes (~/.local/state/scenes/scenes).
            """,
        subcommands: [
            List.self, Show.self, Get.self, SetCommand.self, Remove.self, Discard.self, Watch.self,
            Run.self, Catalog.self,
        ]
    )

    /// `--root` and `--lock-timeout` before the subcommand name; each
    /// subcommand takes the same options through its own group.
    @OptionGroup var rootOptions: RootOptions

    static func main() async {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            let level = ProcessInfo.processInfo.environment["SCENES_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
            handler.logLevel = level ?? .warning
            return handler
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as SceneStoreError {
            switch error {
            case .lockTimeout:
                // EX_TEMPFAIL: trying again later may work; nothing was written.
                exit(withError: failure("\(error); nothing was written", status: 75))
            default:
                exit(withError: failure("\(error)"))
            }
        } catch {
            exit(withError: error)
        }
    }
}
