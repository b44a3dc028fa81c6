import Foundation
import Testing

/// Every Swift block of README.md is compiled: it stands, verbatim, in
/// ReadmeExamples.swift, which `swift build --build-tests` builds. The
/// blocks of the DocC articles are compiled too, in the ArticleExamples
/// files (see `ArticleDriftTests`).
@Suite struct ReadmeDriftTests {
    private static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    private static let packageRoot = tests.deletingLastPathComponent().deletingLastPathComponent()

    @Test func everySwiftBlockOfTheReadmeIsInTheCompiledExamples() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        // ReadmeExamples.swift, and ReadmeExamples+Postgres.swift for the blocks
        // that need the Postgres trait.
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.tests.path)
            .filter { $0.hasPrefix("ReadmeExamples") && $0.hasSuffix(".swift") }
        #expect(files.contains("ReadmeExamples.swift"))
        let examples = try files.map { try String(contentsOf: Self.tests.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme)
        #expect(blocks.count >= 10, "README.md has \(blocks.count) Swift blocks; did the fence change?")
        for block in blocks {
            // Lines for a dependent's Package.swift: checked against this
            // package's products instead.
            if ArticleDriftTests.isManifestFragment(block) {
                for problem in ArticleDriftTests.manifestProblems(block, manifest: manifest) {
                    Issue.record("README block (Package.swift lines): \(problem)\n\(block)")
                }
                continue
            }
            let compiled = examples.contains(block)
            #expect(compiled, "README block not in ReadmeExamples*.swift:\n\(block)")
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
