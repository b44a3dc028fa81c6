import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

// Hang guard: its slowest test took 4 s in its layer here, 60 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct DemoCatalogTests {
    @Test func itemRemovedFromTheCatalogIsDroppedAtRestoreAndTheRestStays() async throws {
        let fixture = try await SceneStoreFixture()
        // Library: Teardrop, Heroes (also liked), Stalker (also liked).
        let first = try await headless(["tab library", "open 3", "open 1", "open 1", "push 9"], root: fixture.root)
        let before = try #require(first.lines.last)
        #expect(before.stacks.library == [["song": .title("Teardrop")], ["song": .title("Heroes")], ["movie": .title("Stalker")]])

        let removal = try await scenes(["catalog", "remove", "--song", "Heroes"], root: fixture.root)
        #expect(removal.status == 0, "\(removal.stderr)")
        #expect(try await !scenes(["catalog", "list"], root: fixture.root).stdout.contains("Heroes"))

        let relaunched = try await headless(["show"], root: fixture.root)
        let after = try #require(relaunched.lines.first)
        #expect(after.stacks.library == [["song": .title("Teardrop")], ["movie": .title("Stalker")]])
        #expect(after.stacks.mixed == before.stacks.mixed)
        #expect(after.stacks.books == before.stacks.books)
        #expect(after.tab == "library")
        #expect(after.screen.title == "Stalker")
        #expect(relaunched.stderr.contains(#"song #4 "Heroes" was removed from the catalog"#), "\(relaunched.stderr)")

        // The cleaned path was saved: the next launch has nothing to drop.
        let again = try await headless(["show"], root: fixture.root)
        #expect(again.lines.first?.navigation == after.navigation)
        #expect(again.stderr.isEmpty)
    }

    @Test func removingAnUnknownTitleFailsAndKeepsTheCatalog() async throws {
        let fixture = try await SceneStoreFixture()
        let listed = try await scenes(["catalog", "list"], root: fixture.root).stdout
        let result = try await scenes(["catalog", "remove", "--movie", "No Such Movie"], root: fixture.root)
        #expect(result.status == 1)
        #expect(result.stderr.contains("No Such Movie"))
        #expect(try await scenes(["catalog", "list"], root: fixture.root).stdout == listed)
        #expect(try await scenes(["catalog", "remove", "--song", "a", "--book", "b"], root: fixture.root).status != 0)
    }
}
