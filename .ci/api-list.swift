// Writes <output>/<Module>.txt for each module named: its public symbols
// from the symbol graphs in <graphs> (the module's own and its extensions
// of other modules), one line each, sorted: kind, path, declaration.
// Fails, naming them, when a public symbol has no doc comment (one it
// inherits from the protocol it implements counts). Run by .ci/api.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3, let graphs = arguments.first, let output = arguments.dropFirst().first else {
    FileHandle.standardError.write(Data("usage: api-list.swift GRAPHS OUTPUT MODULE...\n".utf8))
    exit(2)
}
let files = (try? FileManager.default.contentsOfDirectory(atPath: graphs)) ?? []
var undocumented: [String] = []
for module in arguments.dropFirst(2) {
    var lines: Set<String> = []
    for file in files where file == "\(module).symbols.json" || file.hasPrefix("\(module)@") {
        guard let data = FileManager.default.contents(atPath: "\(graphs)/\(file)"),
              let graph = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let symbols = graph["symbols"] as? [[String: Any]]
        else {
            FileHandle.standardError.write(Data("cannot read \(graphs)/\(file)\n".utf8))
            exit(1)
        }
        for symbol in symbols {
            let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? "?"
            let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
            let declaration = (symbol["declarationFragments"] as? [[String: Any]] ?? [])
                .compactMap { $0["spelling"] as? String }.joined()
            lines.insert("\(kind) \(path): \(declaration)")
            if symbol["docComment"] == nil { undocumented.append("\(module): \(kind) \(path)") }
        }
    }
    let text = lines.sorted().joined(separator: "\n") + "\n"
    guard FileManager.default.createFile(atPath: "\(output)/\(module).txt", contents: Data(text.utf8)) else { exit(1) }
}
if !undocumented.isEmpty {
    let list = Set(undocumented).sorted().joined(separator: "\n")
    FileHandle.standardError.write(Data("public symbols without a doc comment:\n\(list)\n".utf8))
    exit(1)
}
