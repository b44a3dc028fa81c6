import Foundation
import Testing

/// Every Swift block of README.md is compiled: it stands, verbatim, in
/// ReadmeExamples.swift, which `swift build --build-tests` builds. So does
/// every Swift block of the other top-level documents (BENCHMARKS.md,
/// CONTRIBUTING.md, CHANGELOG.md) and of Demo/README.md. The blocks of the
/// DocC articles are compiled too, in the ArticleExamples files (see
/// `ArticleDriftTests`).
@Suite struct ReadmeDriftTests {
    private static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    private static let packageRoot = tests.deletingLastPathComponent().deletingLastPathComponent()

    /// The Markdown documents besides README.md whose Swift blocks must be
    /// compiled the same way: every one at the top level, and the demo's.
    /// None has a Swift block today; one added lands in ReadmeExamples*.swift.
    static let otherDocuments: [String] = {
        let topLevel = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.path)) ?? []
        return topLevel.filter { $0.hasSuffix(".md") && $0 != "README.md" }.sorted() + ["Demo/README.md"]
    }()

    @Test func everySwiftBlockOfTheReadmeIsInTheCompiledExamples() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme)
        // Lower it only when removing a block on purpose.
        #expect(blocks.count >= 4, "README.md has \(blocks.count) Swift blocks; did the fence change?")
        try Self.expectCompiled(blocks, of: "README.md")
        #expect(Self.oddSwiftFences(in: readme).isEmpty, "README.md: \(Self.oddSwiftFences(in: readme))")
    }

    @Test func theOtherDocumentsAreFound() {
        for name in ["BENCHMARKS.md", "CHANGELOG.md", "CONTRIBUTING.md", "Demo/README.md"] {
            #expect(Self.otherDocuments.contains(name), "\(name) is not checked")
        }
    }

    @Test(arguments: otherDocuments)
    func everySwiftBlockOfTheDocumentIsInTheCompiledExamples(_ name: String) throws {
        let markdown = try String(contentsOf: Self.packageRoot.appendingPathComponent(name), encoding: .utf8)
        try Self.expectCompiled(Self.swiftBlocks(in: markdown), of: name)
        #expect(Self.oddSwiftFences(in: markdown).isEmpty, "\(name): \(Self.oddSwiftFences(in: markdown))")
    }

    /// Each block stands, verbatim, in ReadmeExamples.swift or another
    /// ReadmeExamples*.swift file, or is Package.swift lines that fit this
    /// package.
    static func expectCompiled(_ blocks: [String], of name: String) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: tests.path)
            .filter { $0.hasPrefix("ReadmeExamples") && $0.hasSuffix(".swift") }
        #expect(files.contains("ReadmeExamples.swift"))
        let examples = try files.map { try String(contentsOf: tests.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        for block in blocks {
            // Lines for a dependent's Package.swift: checked against this
            // package's products instead.
            if ArticleDriftTests.isManifestFragment(block) {
                for problem in ArticleDriftTests.manifestProblems(block, manifest: manifest) {
                    Issue.record("\(name) block (Package.swift lines): \(problem)\n\(block)")
                }
                continue
            }
            let compiled = examples.contains(block)
            #expect(compiled, "\(name) block not in ReadmeExamples*.swift:\n\(block)")
        }
    }

    /// Fence lines that open Swift in another spelling ("```Swift",
    /// "``` swift"), whose blocks `swiftBlocks(in:)` would not see.
    static func oddSwiftFences(in markdown: String) -> [Substring] {
        markdown.split(separator: "\n").filter { line in
            line != "```swift" && line.hasPrefix("```")
                && line.dropFirst(3).trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("swift")
        }
    }

    /// The text between each "```swift" line and the next "```" line.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil {
                if line == "```swift" { current = [] }
            } else if line == "```" {
                blocks.append(current.map { $0.joined(separator: "\n") } ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
