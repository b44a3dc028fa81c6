import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

@main
struct Scenes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenes",
        abstract: "Per-scene state that survives relaunch and stays in sync across processes.",
        discussion: """
            Scenes live in --root DIR, else $SCENES_ROOT, else \
            $XDG_STATE_HOME/scenes/scenes (~/.local/state/scenes/scenes); --app-id ID reads an app's \
            own ($XDG_STATE_HOME/ID/scenes). Shell completions: \
            scenes --generate-completion-script bash|zsh|fish.
            """,
        version: scenesVersion,
        subcommands: [
            List.self, Show.self, Get.self, SetCommand.self, Remove.self, Discard.self, Watch.self,
            Run.self, Catalog.self, Prune.self,
        ]
    )

    /// `--root` and `--lock-timeout` before the subcommand name; each
    /// subcommand takes the same options through its own group.
    @OptionGroup var rootOptions: RootOptions

    static func main() async {
        refuseTooFewOpenFiles()
        await runCommandLine(Self.self, direct: Get.direct)
    }
}
