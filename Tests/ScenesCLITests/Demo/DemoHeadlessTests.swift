import Foundation
import MultiProcessSupport
import SceneStoreTesting
import Testing

// Hang guard: its slowest test took 4 s in its layer here, 58 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct DemoHeadlessTests {
    /// Pushes on every tab, deep-links settings, ends on the Books tab.
    static let script = [
        "push 5", "push hello", "open 7", "open 8",      // Mixed: 5, "hello", random, "favorite"
        "tab library", "open 3", "open 1",                // Library: Teardrop, then one it suggests
        "tab books", "open 2", "open 1", "open 1",       // Books: Foundation, Solaris, The Dispossessed
        "settings",                                       // Library path replaced by [settings]
        "tab 2",
    ]

    @Test func everyCommandPrintsOneSingleLineJSONState() async throws {
        let fixture = try await SceneStoreFixture()
        let run = try await headless(Self.script, root: fixture.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.count == Self.script.count)
        #expect(run.lines.allSatisfy { $0.origin == "local" && $0.scene == "main" })
        let last = try #require(run.lines.last)
        #expect(last.tab == "books")
        #expect(last.stacks.mixed.count == 4)
        #expect(last.stacks.mixed.prefix(2) == [.number(5), .text("hello")])
        #expect(last.stacks.mixed.last == .text("favorite"))
        #expect(last.stacks.books == ["Foundation", "Solaris", "The Dispossessed"])
        #expect(last.stacks.library == [["settings": .flag(true)]])
        #expect(last.screen.title == "The Dispossessed")
        #expect(last.screen.links.contains("Back to first book"))
    }

    /// The state line is written by hand (StateLine.json): each string
    /// comes back as pushed, and nothing a terminal obeys is written raw.
    @Test func stateLinesEscapeWhatTheyMust() async throws {
        let fixture = try await SceneStoreFixture()
        let texts = ["q\"uote", "back\\slash", "t\tab", "b\u{08}f\u{0C}", "esc\u{1B}[7m", "del\u{7F}c1\u{9B}", "bidi\u{202E}\u{2066}", "é✓/"]
        let run = try await headless(texts.map { "push \($0)" }, root: fixture.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.last?.stacks.mixed == texts.map(MixedElement.text))
        let raw = try await scenes(["run", "--scene", "main"], root: fixture.root, stdin: "show\n")
        let obeyed: Set<Unicode.Scalar> = ["\u{202E}", "\u{2066}"]
        let rawControls = raw.stdout.unicodeScalars.filter { scalar in
            scalar.value < 0x20 ? scalar != "\n" : (0x7F...0x9F).contains(scalar.value) || obeyed.contains(scalar)
        }
        #expect(rawControls.isEmpty)
        #expect(raw.stdout.contains(#""q\"uote","back\\slash","t\tab","b\bf\f","esc\u001b[7m","del\u007fc1\u009b","bidi\u202e\u2066","é✓/""#))
    }

    @Test func relaunchRestoresTabAndEveryStack() async throws {
        let fixture = try await SceneStoreFixture()
        let first = try await headless(Self.script + ["quit"], root: fixture.root)
        let before = try #require(first.lines.last)
        let relaunched = try await headless(["show"], root: fixture.root)
        let after = try #require(relaunched.lines.first)
        #expect(relaunched.lines.count == 1)
        #expect(after.navigation == before.navigation)
        #expect(after.screen == before.screen)
    }

    @Test func secondSceneIsUnaffected() async throws {
        let fixture = try await SceneStoreFixture()
        let main = try await headless(Self.script, root: fixture.root)
        let work = try await headless(["show", "push 1", "tab library", "open 1"], scene: "work", root: fixture.root)
        let fresh = try #require(work.lines.first)
        #expect(fresh.tab == "mixed")
        #expect(fresh.stacks == DemoLine.Stacks(mixed: [], books: [], library: []))
        #expect(work.lines.last?.stacks.library == [["song": .title("Blue in Green")]])
        let mainAgain = try await headless(["show"], root: fixture.root)
        #expect(mainAgain.lines.first?.navigation == main.lines.last?.navigation)
        let workAgain = try await headless(["show"], scene: "work", root: fixture.root)
        #expect(workAgain.lines.first?.navigation == work.lines.last?.navigation)
    }

    @Test func backRootAndBackToFirstBookNavigate() async throws {
        let fixture = try await SceneStoreFixture()
        let run = try await headless([
            "push 1", "push 2", "push 3", "back", "root",
            "tab books", "open 1", "open 1", "open 1", "open 3", "back", "root",
        ], root: fixture.root)
        let mixed = run.lines.prefix(5).map(\.stacks.mixed)
        #expect(mixed == [[.number(1)], [.number(1), .number(2)], [.number(1), .number(2), .number(3)],
                          [.number(1), .number(2)], []])
        let books = run.lines.dropFirst(5).map(\.stacks.books)
        #expect(books == [[], ["Dune"], ["Dune", "Foundation"], ["Dune", "Foundation", "Solaris"],
                          ["Dune"], [], []])
    }

    @Test func unknownCommandsAreRefusedOnStderrAndChangeNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let run = try await headless(
            ["push 4", "bogus", "tab nowhere", "open 0", "open 99", "tab books", "push 5", "show"],
            root: fixture.root)
        #expect(run.status == 0)
        #expect(run.lines.count == 3)
        #expect(run.lines.last?.stacks.mixed == [.number(4)])
        #expect(run.lines.last?.tab == "books")
        let errors = run.stderr.split(separator: "\n")
        #expect(errors.count == 5)
        #expect(errors.first?.contains("bogus") == true)
    }
}
