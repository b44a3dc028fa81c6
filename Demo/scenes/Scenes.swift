import ArgumentParser
import Foundation
import Logging

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
            List.self, Show.self, Get.self, SetCommand.self, Remove.self, Discard.self, Watch.self, Stress.self, Torture.self,
            Run.self, Catalog.self, Bench.self, Probe.self,
        ]
    )

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
        } catch {
            exit(withError: error)
        }
    }
}
