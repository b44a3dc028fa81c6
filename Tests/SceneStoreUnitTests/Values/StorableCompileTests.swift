import Foundation
import SceneStoreTesting
import Testing

/// Only the six kinds (and Optional / raw-value wrappers of them) can be
/// stored directly, and a Codable model through a key with a tag: anything
/// else must be a compile error, checked by running the real compiler on a
/// snippet against the built SceneStore module, which sees only its public
/// API.
@Suite struct StorableCompileTests {
    @Test(arguments: notStorable)
    func nonStorableTypesDoNotCompile(expression: String) async throws {
        let result = try await Self.rejected.value.result(of: Self.setting(expression))
        #expect(result.failed, "`store.set(\(expression), ...)` compiled")
        #expect(result.errors.contains("SceneStorable"), "\(result.errors)")
    }

    @Test(arguments: storable)
    func storableTypesCompile(expression: String) async throws {
        let result = try await Self.accepted.value.result(of: Self.setting(expression))
        #expect(!result.failed, "\(result.errors)")
    }

    /// A Codable model is stored, wrapped and bound through a key with a tag.
    @Test func aCodableModelIsKeptThroughAKeyWithATag() async throws {
        let result = try await Self.accepted.value.result(of: Self.modelKey)
        #expect(!result.failed, "\(result.errors)")
    }

    static let storable = [
        "1", "true", "0.5", "\"s\"", "URL(fileURLWithPath: \"/\")", "Data()", "Optional(1)", "Color.red",
        "Level.high", "Optional(Color.red)",
    ]
    static let notStorable = ["Float(1)", "Date()", "[1, 2]", "Point()", "Optional(Float(1))", "Shade.dark"]

    /// `@SceneStored` accepts exactly what `set` accepts.
    @Test(arguments: notStorable)
    func propertyWrapperRejectsNonStorableTypes(expression: String) async throws {
        let result = try await Self.rejected.value.result(of: Self.wrapping(expression))
        #expect(result.failed, "`@SceneStored(...) var v = \(expression)` compiled")
        #expect(result.errors.contains("SceneStorable"), "\(result.errors)")
    }

    @Test(arguments: storable)
    func propertyWrapperAcceptsStorableTypes(expression: String) async throws {
        let result = try await Self.accepted.value.result(of: Self.wrapping(expression))
        #expect(!result.failed, "\(result.errors)")
    }

    /// `SceneProperty` (model binding) accepts exactly what `set` accepts.
    @Test func modelPropertyRejectsNonStorableTypes() async throws {
        let result = try await Self.rejected.value.result(of: Self.floatProperty)
        #expect(result.failed, "a Float property was accepted")
        #expect(result.errors.contains("SceneStorable"), "\(result.errors)")
    }

    static func setting(_ expression: String) -> String {
        "try store.set(\(expression), for: SceneKey(\"k\", default: \(expression)))"
    }

    static func wrapping(_ expression: String) -> String {
        """
        @SceneStored(SceneKey("k", default: \(expression)), store: store) var value
        value = \(expression)
        """
    }

    static let floatProperty = """
        final class Model { var ratio: Float = 1 }
        _ = SceneProperty(\\Model.ratio, key: SceneKey("k", default: Float(1)))
        """

    static let modelKey = """
        let key = SceneKey("k", tag: "point", default: Point())
        try store.set(Point(), for: key)
        @SceneStored(key, store: store) var point
        point = store[key]
        final class Model { var point = Point() }
        _ = SceneProperty(\\Model.point, key: key)
        """

    /// Every snippet that must compile, in one compiler run, and every
    /// snippet that must not, in another: each snippet is a function of
    /// its own, and the compiler reports every error with its line, so
    /// each test finds its own snippet's verdict. (One run per snippet
    /// kept a core busy for a minute at the start of the suite.)
    static let accepted = Task {
        try await typecheck(storable.map(setting) + storable.map(wrapping) + [modelKey])
    }
    static let rejected = Task {
        try await typecheck(notStorable.map(setting) + notStorable.map(wrapping) + [floatProperty])
    }

    /// The compiler's verdict on a batch of snippets.
    struct Batch: Sendable {
        let output: String
        /// Each snippet's first and last line in the compiled file.
        let lines: [String: ClosedRange<Int>]

        /// Whether the compiler found an error in `snippet`, and its messages.
        func result(of snippet: String) -> (failed: Bool, errors: String) {
            guard let range = lines[snippet] else { return (false, "snippet not in the batch") }
            // Each error in the snippet's lines, with the notes after it
            // (which may point into SceneStore and name the protocol).
            var errors: [Substring] = []
            var inside = false
            for line in output.split(separator: "\n") {
                if let match = line.firstMatch(of: #/snippet\.swift:(\d+):\d+: error: /#), let number = Int(match.1) {
                    inside = range.contains(number)
                } else if line.contains(": error: ") {
                    inside = false
                }
                if inside { errors.append(line) }
            }
            return (!errors.isEmpty, errors.joined(separator: "\n"))
        }
    }

    /// Runs the compiler on its own thread: a test that held one of the
    /// few shared test threads for the seconds a compile takes would
    /// starve the tests running beside it.
    private static func typecheck(_ snippets: [String]) async throws -> Batch {
        try await blockingWork { try Self.typecheckBlocking(snippets) }
    }

    private static func typecheckBlocking(_ snippets: [String]) throws -> Batch {
        var snippet = """
            import Foundation
            import SceneStore
            struct Point: Codable {}
            enum Color: String, SceneStorable { case red }
            enum Level: Double, SceneStorable { case high = 1 }
            enum Shade: Float { case dark = 1 }

            """
        var lines: [String: ClosedRange<Int>] = [:]
        var line = snippet.split(separator: "\n", omittingEmptySubsequences: false).count
        for (index, body) in snippets.enumerated() {
            let bodyLines = body.split(separator: "\n", omittingEmptySubsequences: false).count
            snippet += "@MainActor func use\(index)(_ store: SceneStore) throws {\n\(body)\n}\n"
            lines[body] = (line + 1)...(line + bodyLines)
            line += bodyLines + 2
        }
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
        let supportMap = packageRoot.appendingPathComponent("Sources/CSceneSupport/include/module.modulemap")
        // swift-system's C module, which SceneStore's module imports (`Errno`).
        let systemMap = products.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("checkouts/swift-system/Sources/CSystem/include/module.modulemap")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swiftc", "-typecheck", "-swift-version", "6",
            "-I", products.appendingPathComponent("Modules").path,
            "-Xcc", "-fmodule-map-file=\(moduleMap.path)",
            "-Xcc", "-fmodule-map-file=\(supportMap.path)",
            "-Xcc", "-fmodule-map-file=\(systemMap.path)",
            file.path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Batch(output: output, lines: lines)
    }
}
