import ArgumentParser
import SceneStore
import ScenesCLIKit

struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print one value the way `set` takes it.",
        discussion: """
            Bool as true/false, numbers in decimal, URL as its absolute string, Data as base64, \
            except a stored model or a navigation path, printed as its JSON (--raw: base64). \
            Control characters print as \\u{XX} and a backslash as \\\\ (nothing stored can \
            rewrite the terminal); --json prints the exact value. Exit status 1 if the key is absent. \
            Reads only: creates nothing.
            """
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @OptionGroup var keyArgument: KeyArgument
    @Flag(help: #"Print {"type", "value"} as one JSON line (the form `show --json` uses for each key)."#)
    var json = false
    @Flag(help: "Print Data as base64 even when it holds a stored model or a navigation path.")
    var raw = false

    func run() async throws {
        let id = try sceneOption.sceneID()
        let registry = try await rootOptions.openRegistry(readOnly: true)
        guard let value = try await registry.store(for: id).snapshot[keyArgument.key] else {
            throw keyArgument.missing(in: id)
        }
        emit(json ? try jsonLine(value) : (raw ? value.description : value.readableDescription).terminalSafe)
        try await registry.close()
    }
}
