import Foundation
import MultiProcessSupport
import SceneStoreTesting
import Testing

/// The full-screen demo's layout on narrow and short terminals, in tmux.
// Hang guard: its slowest test took 2 s in its layer here, 54 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
struct DemoLayoutTests {
    private static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).trimmingCharacters(in: .whitespaces)
        }
    }

    /// A root screen shows its title once; a String element reads
    /// `Text "a"` in its link, its title and the breadcrumb alike.
    @Test func theRootTitleShowsOnceAndStringsHaveOneLabelStyle() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }
        try DemoInteractiveTests.launch(in: pane, root: fixture.root)
        let root = try #require(try await pane.waitFor("[1 Mixed]", "q quit"), "\(pane.screen)")
        #expect(Self.lines(root).filter { $0 == "Mixed" }.count == 1, "\(root)")
        #expect(!root.contains("Mixed /"), "no breadcrumb at the root")
        #expect(root.contains(#"  Text "a""#), "\(root)")

        try pane.press("j", "j", "j", "Enter")   // the fourth link: Text "a"
        let pushed = try #require(try await pane.waitFor(#"Mixed / Text "a""#), "\(pane.screen)")
        #expect(Self.lines(pushed).contains(#"Text "a""#), "the title, in the same style: \(pushed)")
        try pane.press("q")
    }

    /// On a 36-column terminal a deep breadcrumb keeps its end and says
    /// it was cut; any other cut line ends in "…".
    @Test func aCutBreadcrumbKeepsItsEndAndShowsAnEllipsis() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane(columns: 36, rows: 30)
        defer { pane.stop() }
        try DemoInteractiveTests.launch(in: pane, root: fixture.root)
        #expect(try await pane.waitFor("[1 Mixed]") != nil, "\(pane.screen)")
        for _ in 0..<4 { try pane.press("Enter") }   // Number 1, four deep
        let deep = try #require(try await pane.waitFor("Path count: 4"), "\(pane.screen)")
        #expect(deep.contains("… / Number 1 / Number 1"), "\(deep)")
        #expect(!deep.contains("Mixed / Number 1 / Number 1 / Number 1"), "the start was cut: \(deep)")
        #expect(deep.contains("…\n") || Self.lines(deep).contains { $0.hasSuffix("…") }, "\(deep)")
        try pane.press("q")
    }

    /// Six rows: the list still shows, with the selection, above the status line.
    @Test func aSixRowTerminalStillShowsTheList() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane(columns: 100, rows: 6)
        defer { pane.stop() }
        try DemoInteractiveTests.launch(in: pane, root: fixture.root)
        let screen = try #require(try await pane.waitFor("[1 Mixed]", "scene main"), "\(pane.screen)")
        #expect(screen.contains("> Number 1"), "\(screen)")
        #expect(screen.contains("  Number 2"), "\(screen)")
        try pane.press("j", "Enter")
        #expect(try await pane.waitFor("Mixed / Number 2", "> Number 1") != nil, "\(pane.screen)")
        try pane.press("q")
    }
}
