import ArgumentParser
import SceneStore
import ScenesCLIKit

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every key of a scene.",
        discussion: """
            A stored model or a navigation path prints as its JSON (--raw: base64). \
            Control characters in keys and values print as \\u{XX} and a backslash as \\\\; \
            --json prints them exactly. Reads only: creates nothing.
            """)

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @Flag(help: #"Print {"scene", "generation", "values": {KEY: {"type", "value"}}} as one JSON line."#)
    var json = false
    @Flag(help: "Print Data as base64 even when it holds a stored model or a navigation path.")
    var raw = false

    func run() async throws {
        let id = try sceneOption.sceneID()
        let registry = try await rootOptions.openRegistry(readOnly: true)
        try await requireScene(id, in: registry)
        let store = try await registry.store(for: id)
        let values = store.snapshot
        if json {
            emit(try jsonLine(SceneDump(scene: id.rawValue, generation: store.generation, values: values)))
        } else {
            printTable(id: id, generation: store.generation, values: values)
        }
        try await registry.close()
    }

    private func printTable(id: SceneID, generation: UInt64, values: [String: SceneValue]) {
        emit("scene \(id) (generation \(generation), \(values.count) \(values.count == 1 ? "key" : "keys"))")
        let width = values.keys.map(\.terminalSafe.count).max() ?? 0
        for key in values.keys.sorted() {
            guard let value = values[key] else { continue }
            let padded = key.terminalSafe.padding(toLength: width, withPad: " ", startingAt: 0)
            let kind = value.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
            emit("  \(padded)  \(kind)  \((raw ? value.description : value.readableDescription).terminalSafe)")
        }
    }
}
