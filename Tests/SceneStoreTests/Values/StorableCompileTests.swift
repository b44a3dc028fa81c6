import Foundation
import Testing

/// Only the six kinds (and Optional / raw-value wrappers of them) can be
/// stored: anything else must be a compile error, checked by running the
/// real compiler on a snippet against the built SceneStore module.
@Suite struct StorableCompileTests {
    @Test(arguments: ["Float(1)", "Date()", "[1, 2]", "Point()", "Optional(Float(1))"])
    func nonStorableTypesDoNotCompile(expression: String) throws {
        let result = try typecheck(expression)
        #expect(result.status != 0, "`store.set(\(expression), ...)` compiled")
        #expect(result.output.contains("SceneStorable"), "\(result.output)")
    }

    @Test(arguments: ["1", "true", "0.5", "\"s\"", "URL(fileURLWithPath: \"/\")", "Data()", "Optional(1)", "Color.red"])
    func storableTypesCompile(expression: String) throws {
        let result = try typecheck(expression)
        #expect(result.status == 0, "\(result.output)")
    }

    private func typecheck(_ expression: String) throws -> (status: Int32, output: String) {
        let snippet = """
            import Foundation
            import SceneStore
            struct Point: Codable {}
            enum Color: String, SceneStorable { case red }
            func use(_ store: SceneStore) throws {
                try store.set(\(expression), forKey: "k")
            }
            """
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("storable-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("snippet.swift")
        try snippet.write(to: file, atomically: true, encoding: .utf8)

        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let moduleMap = packageRoot.appendingPathComponent("Sources/CInotifyTools/module.modulemap")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swiftc", "-typecheck", "-swift-version", "6",
            "-I", products.appendingPathComponent("Modules").path,
            "-Xcc", "-fmodule-map-file=\(moduleMap.path)",
            file.path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
