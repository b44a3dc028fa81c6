import Foundation
import SceneStoreTesting
import Testing

/// Only the six kinds (and Optional / raw-value wrappers of them) can be
/// stored: anything else must be a compile error, checked by running the
/// real compiler on a snippet against the built SceneStore module.
@Suite struct StorableCompileTests {
    @Test(arguments: notStorable)
    func nonStorableTypesDoNotCompile(expression: String) async throws {
        let result = try await typecheck(expression)
        #expect(result.status != 0, "`store.set(\(expression), ...)` compiled")
        #expect(result.output.contains("SceneStorable"), "\(result.output)")
    }

    @Test(arguments: storable)
    func storableTypesCompile(expression: String) async throws {
        let result = try await typecheck(expression)
        #expect(result.status == 0, "\(result.output)")
    }

    static let storable = [
        "1", "true", "0.5", "\"s\"", "URL(fileURLWithPath: \"/\")", "Data()", "Optional(1)", "Color.red",
        "Level.high", "Optional(Color.red)",
    ]
    static let notStorable = ["Float(1)", "Date()", "[1, 2]", "Point()", "Optional(Float(1))", "Shade.dark"]

    /// `@SceneStored` accepts exactly what `set` accepts.
    @Test(arguments: notStorable)
    func propertyWrapperRejectsNonStorableTypes(expression: String) async throws {
        let result = try await typecheck(wrapping: expression)
        #expect(result.status != 0, "`@SceneStored(...) var v = \(expression)` compiled")
        #expect(result.output.contains("SceneStorable"), "\(result.output)")
    }

    @Test(arguments: storable)
    func propertyWrapperAcceptsStorableTypes(expression: String) async throws {
        let result = try await typecheck(wrapping: expression)
        #expect(result.status == 0, "\(result.output)")
    }

    /// `SceneProperty` (model binding) accepts exactly what `set` accepts.
    @Test func modelPropertyRejectsNonStorableTypes() async throws {
        let result = try await typecheck(body: """
            final class Model { var ratio: Float = 1 }
            _ = SceneProperty(\\Model.ratio, forKey: "k")
            """)
        #expect(result.status != 0, "a Float property was accepted")
        #expect(result.output.contains("SceneStorable"), "\(result.output)")
    }

    private func typecheck(_ expression: String) async throws -> (status: Int32, output: String) {
        try await typecheck(body: "try store.set(\(expression), forKey: \"k\")")
    }

    private func typecheck(wrapping expression: String) async throws -> (status: Int32, output: String) {
        try await typecheck(body: """
            @SceneStored("k", store: store) var value = \(expression)
            value = \(expression)
            """)
    }

    /// Runs the compiler on its own thread, one snippet at a time: a test
    /// that held one of the few shared test threads for the seconds a
    /// compile takes (or ran a compiler per core) would starve the tests
    /// running beside it.
    private func typecheck(body: String) async throws -> (status: Int32, output: String) {
        try await blockingWork {
            Self.compiler.wait()
            defer { Self.compiler.signal() }
            return try Self.typecheckBlocking(body: body)
        }
    }

    private static let compiler = DispatchSemaphore(value: 1)

    private static func typecheckBlocking(body: String) throws -> (status: Int32, output: String) {
        let snippet = """
            import Foundation
            import SceneStore
            struct Point: Codable {}
            enum Color: String, SceneStorable { case red }
            enum Level: Double, SceneStorable { case high = 1 }
            enum Shade: Float { case dark = 1 }
            @MainActor func use(_ store: SceneStore) throws {
                \(body)
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
