import Foundation
import Testing

/// Every Swift block of the DocC articles is compiled, as the README's are:
/// it stands in the catalog's ArticleExamples file, which
/// `swift build --build-tests` builds. A block may be split there at its
/// blank lines (imports at the top, extensions at file scope, statements in
/// a function), each part in the block's order, its lines compared with
/// leading whitespace trimmed.
///
/// A block of Package.swift lines (`.package(...)`, `.product(...)`) cannot
/// be compiled in a test target; its products and package are checked
/// against this package's own Package.swift instead.
@Suite struct ArticleDriftTests {
    /// An article with Swift blocks, and the fewest it must have, so that a
    /// changed fence cannot leave nothing to check.
    struct Article: Sendable, CustomTestStringConvertible {
        let catalog: String
        let name: String
        let minimumBlocks: Int
        var testDescription: String { "\(catalog)/\(name)" }
    }

    private static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    private static let packageRoot = tests.deletingLastPathComponent().deletingLastPathComponent()

    /// Each catalog and the file that compiles its articles' blocks.
    static let catalogs = [
        "Sources/SceneStore/SceneStore.docc": "ArticleExamples+SceneStore.swift",
        "Sources/SceneNavigation/SceneNavigation.docc": "ArticleExamples+SceneNavigation.swift",
        "Sources/SceneStoreTesting/SceneStoreTesting.docc": "ArticleExamples+Testing.swift",
        // Compiled with the Postgres trait.
        "Sources/SceneStorePostgres/SceneStorePostgres.docc": "ArticleExamples+Postgres.swift",
    ]

    /// Lower a minimum only when removing a block on purpose.
    static let articles = [
        Article(catalog: "Sources/SceneStore/SceneStore.docc", name: "SceneStore.md", minimumBlocks: 1),
        Article(catalog: "Sources/SceneStore/SceneStore.docc", name: "GettingStarted.md", minimumBlocks: 10),
        Article(catalog: "Sources/SceneStore/SceneStore.docc", name: "RestoringWindows.md", minimumBlocks: 3),
        Article(catalog: "Sources/SceneNavigation/SceneNavigation.docc", name: "SceneNavigation.md", minimumBlocks: 2),
        Article(catalog: "Sources/SceneNavigation/SceneNavigation.docc", name: "RestoringNavigation.md", minimumBlocks: 7),
        Article(catalog: "Sources/SceneStoreTesting/SceneStoreTesting.docc", name: "SceneStoreTesting.md", minimumBlocks: 1),
        Article(catalog: "Sources/SceneStoreTesting/SceneStoreTesting.docc", name: "TestingRelaunchAndCrashes.md", minimumBlocks: 5),
        Article(catalog: "Sources/SceneStorePostgres/SceneStorePostgres.docc", name: "SceneStorePostgres.md", minimumBlocks: 1),
    ]

    @Test(arguments: articles)
    func everySwiftBlockOfTheArticleIsInTheCompiledExamples(_ article: Article) throws {
        let markdown = try String(
            contentsOf: Self.packageRoot.appendingPathComponent(article.catalog).appendingPathComponent(article.name),
            encoding: .utf8)
        let examplesFile = try #require(Self.catalogs[article.catalog], "no examples file for \(article.catalog)")
        let examples = try String(contentsOf: Self.tests.appendingPathComponent(examplesFile), encoding: .utf8)
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)

        let blocks = ReadmeDriftTests.swiftBlocks(in: markdown)
        #expect(blocks.count >= article.minimumBlocks,
                "\(article.name) has \(blocks.count) Swift blocks, expected at least \(article.minimumBlocks); did the fence change?")
        for (index, block) in blocks.enumerated() {
            if Self.isManifestFragment(block) {
                for problem in Self.manifestProblems(block, manifest: manifest) {
                    Issue.record("\(article.name), Swift block \(index + 1) (Package.swift lines): \(problem)\n\(block)")
                }
            } else {
                let compiled = Self.contains(examples, block)
                #expect(compiled, "\(article.name), Swift block \(index + 1), not in \(examplesFile):\n\(block)")
            }
        }
    }

    /// An article added with Swift blocks must be listed above, so that its
    /// blocks are checked too.
    @Test func everyArticleWithSwiftBlocksIsChecked() throws {
        for catalog in Self.catalogs.keys.sorted() {
            let directory = Self.packageRoot.appendingPathComponent(catalog)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".md") }
            #expect(!names.isEmpty, "no articles in \(catalog)")
            for name in names {
                let markdown = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                let listed = Self.articles.contains { $0.catalog == catalog && $0.name == name }
                let blocks = ReadmeDriftTests.swiftBlocks(in: markdown).count
                #expect(listed || blocks == 0,
                        "\(catalog)/\(name) has \(blocks) Swift blocks but is not in ArticleDriftTests.articles")
            }
        }
    }

    @Test func theMatchingFindsWhatItShouldAndNothingElse() {
        let source = """
            import A

            enum Namespace {
                static func f() {
                    let x = 1
                    use(x)

                    let y = 2
                }
            }
            """
        #expect(Self.contains(source, "import A\n\nlet x = 1\nuse(x)\n\nlet y = 2"))
        #expect(Self.contains(source, "    let x = 1\n  use(x)"))
        #expect(!Self.contains(source, "let x = 1\nlet y = 2"))   // not consecutive
        #expect(!Self.contains(source, "let y = 2\n\nlet x = 1"))   // out of order
        #expect(!Self.contains(source, "let x = 10"))
        #expect(Self.isManifestFragment(".package(url: \"https://example.com/A\", from: \"1.0.0\"),"))
        #expect(!Self.isManifestFragment("let package = 1"))
    }

    /// Whether `block` stands in `source`: each of its parts (split at
    /// blank lines) as consecutive lines, the parts in order, lines compared
    /// with leading whitespace trimmed.
    static func contains(_ source: String, _ block: String) -> Bool {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(trimmed)
        var parts: [[Substring]] = [[]]
        for line in block.split(separator: "\n", omittingEmptySubsequences: false).map(trimmed) {
            if line.isEmpty { parts.append([]) } else { parts[parts.count - 1].append(line) }
        }
        var start = 0
        for part in parts where !part.isEmpty {
            guard let found = firstIndex(of: part, in: lines, from: start) else { return false }
            start = found + part.count
        }
        return true
    }

    private static func trimmed(_ line: Substring) -> Substring {
        line.drop { $0 == " " || $0 == "\t" }
    }

    private static func firstIndex(of part: [Substring], in lines: [Substring], from start: Int) -> Int? {
        guard lines.count - start >= part.count else { return nil }
        return (start...(lines.count - part.count)).first { lines[$0..<($0 + part.count)].elementsEqual(part) }
    }

    /// Lines for a Package.swift, not Swift that a target could compile.
    static func isManifestFragment(_ block: String) -> Bool {
        block.split(separator: "\n").first?.hasPrefix(".package(") ?? false
    }

    /// What in a Package.swift fragment does not fit this package: every
    /// `.product` must be one of its libraries, from a package named as this
    /// one (the last component of the `.package(url:)`).
    static func manifestProblems(_ block: String, manifest: String) -> [String] {
        var problems: [String] = []
        let packageName = manifest.firstMatch(of: /Package\(\s*name: "([^"]+)"/)?.output.1 ?? ""
        let urls = block.matches(of: /\.package\(url: "([^"]+)"/).map(\.output.1)
        if urls.isEmpty { problems.append("no .package(url:)") }
        for url in urls where url.split(separator: "/").last != packageName {
            problems.append("\(url) does not name the package \(packageName)")
        }
        let products = block.matches(of: /\.product\(name: "([^"]+)", package: "([^"]+)"\)/)
        if products.isEmpty { problems.append("no .product(name:package:)") }
        for product in products {
            if product.output.2 != packageName {
                problems.append("product \(product.output.1) is from \(product.output.2), not \(packageName)")
            }
            if !manifest.contains(".library(name: \"\(product.output.1)\"") {
                problems.append("\(product.output.1) is not a library product of Package.swift")
            }
        }
        return problems
    }
}
