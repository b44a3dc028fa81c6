import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Back and forward survive a quit, a crash and another window, as a
/// browser tab's do.
// Hang guard: its slowest test took 4 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8)))
struct DemoHistoryTests {
    @Test func backTwiceQuitRelaunchForwardTwiceIsWhereItWas() async throws {
        let fixture = try await SceneStoreFixture()
        let first = try await headless(
            ["push 1", "push 2", "push 3", "tab books", "open 1", "open 1", "back", "tab mixed", "back", "back", "quit"],
            root: fixture.root)
        #expect(first.status == 0, "\(first.stderr)")
        let left = try #require(first.lines.last)
        #expect(left.stacks.mixed == [.number(1)])
        #expect(left.forward.mixed == [.number(2), .number(3)])
        #expect(left.forward.books == ["Foundation"])

        let relaunched = try await headless(["show", "forward", "forward", "forward", "tab books", "forward"], root: fixture.root)
        #expect(relaunched.status == 0, "\(relaunched.stderr)")
        let restored = try #require(relaunched.lines.first)
        #expect(restored.forward == left.forward)
        #expect(relaunched.lines.map(\.stacks.mixed).dropFirst().prefix(3) == [
            [.number(1), .number(2)], [.number(1), .number(2), .number(3)], [.number(1), .number(2), .number(3)],
        ])
        let last = try #require(relaunched.lines.last)
        #expect(last.stacks.books == ["Dune", "Foundation"])
        #expect(last.forward == DemoLine.Stacks(mixed: [], books: [], library: []))
    }

    @Test func aPushClearsTheForwardEntries() async throws {
        let fixture = try await SceneStoreFixture()
        let run = try await headless(["push 1", "push 2", "back", "push 9", "forward"], root: fixture.root)
        #expect(run.lines.map(\.forward.mixed) == [[], [], [.number(2)], [], []])
        #expect(run.lines.last?.stacks.mixed == [.number(1), .number(9)])
    }

    @Test func acknowledgedBackStepsSurviveSIGKILL() async throws {
        let fixture = try await SceneStoreFixture()
        let demo = try RunningScenes(["run", "--scene", "main"], root: fixture.root)
        for command in ["push 1", "push 2", "push 3", "back", "back"] {
            demo.send(command)
            // A state line is printed once the edit is durable.
            #expect(await demo.lines.first(within: .seconds(30)) != nil, "no answer to \(command)")
        }
        demo.kill()
        _ = await demo.exitStatus()

        let relaunched = try await headless(["forward", "forward"], root: fixture.root)
        #expect(relaunched.lines.last?.stacks.mixed == [.number(1), .number(2), .number(3)])
        #expect(relaunched.lines.last?.forward.mixed == [])
    }

    @Test func twoWindowsShowTheSameHistory() async throws {
        let fixture = try await SceneStoreFixture()
        let (left, right) = try await twoDemoWindows(root: fixture.root)
        for command in ["push 1", "push 2", "back"] {
            left.send(command)
            _ = await left.lines.first(within: .seconds(30))
        }
        let mirrored = await right.lines.first(within: .seconds(30)) { line in
            DemoLine(line).map { $0.origin == "external" && $0.forward.mixed == [.number(2)] } ?? false
        }
        #expect(mirrored != nil, "the other window never showed the forward entry")
        right.send("forward")
        let forwarded = await right.lines.first(within: .seconds(30)).flatMap(DemoLine.init)
        #expect(forwarded?.stacks.mixed == [.number(1), .number(2)])
        let seen = await left.lines.first(within: .seconds(30)) { line in
            DemoLine(line).map { $0.origin == "external" && $0.stacks.mixed == [.number(1), .number(2)] && $0.forward.mixed.isEmpty } ?? false
        }
        #expect(seen != nil, "the first window never showed the other's forward")
        left.send("quit")
        right.send("quit")
        #expect(await left.exitStatus() == 0)
        #expect(await right.exitStatus() == 0)
    }

    @Test func theLibraryListsWhatWasViewedNewestFirst() async throws {
        let fixture = try await SceneStoreFixture()
        let run = try await headless(["tab library", "open 1", "back", "open 2", "root"], root: fixture.root)
        let root = try #require(run.lines.last)
        let recent = root.screen.links.filter { $0.hasPrefix("Recently viewed: ") }
        let first = try #require(run.lines.dropFirst().first?.screen.title)
        let second = try #require(run.lines.dropFirst(3).first?.screen.title)
        #expect(recent.count == 2)
        #expect(recent.first?.hasSuffix(second) == true)
        #expect(recent.last?.hasSuffix(first) == true)
    }
}
