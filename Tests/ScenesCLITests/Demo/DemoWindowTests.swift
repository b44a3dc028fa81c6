import Foundation
import MultiProcessSupport
import SceneStoreTesting
import Testing

/// `scenes run` without `--scene`: a multi-window app. A launch reopens
/// the latest window nobody has open or makes one; `--new` makes one; `x`
/// closes a window for good; a crashed window comes back with a note; the
/// highlight belongs to its window.
// Hang guard: its slowest test took 4 s in its layer here, 65 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct DemoWindowTests {
    /// A headless launch with `arguments`, fed `commands`, to its end.
    private static func launch(_ arguments: [String], _ commands: [String], root: URL) async throws -> [DemoLine] {
        let result = try await scenes(["run"] + arguments, root: root, stdin: commands.map { $0 + "\n" }.joined())
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { DemoLine(String($0)) }
    }

    @Test func aLaunchReopensTheLatestWindowAndNewMakesAnother() async throws {
        let fixture = try await SceneStoreFixture()
        let first = try await Self.launch([], ["push 5"], root: fixture.root)
        let window = try #require(first.last?.scene)
        #expect(window.hasPrefix("w-"))
        #expect(first.last?.stacks.mixed == [.number(5)])

        let again = try await Self.launch([], ["show"], root: fixture.root)
        #expect(again.last?.scene == window, "reopened after the quit")
        #expect(again.last?.stacks.mixed == [.number(5)])

        let fresh = try await Self.launch(["--new"], ["push 6"], root: fixture.root)
        let other = try #require(fresh.last?.scene)
        #expect(other != window)
        #expect(fresh.last?.stacks.mixed == [.number(6)])

        let latest = try await Self.launch([], ["show"], root: fixture.root)
        #expect(latest.last?.scene == other, "the window quit last comes first")

        let listed = try await scenes(["list"], root: fixture.root).stdout
        #expect(listed.contains("\(window)  restorable  last active "), "\(listed)")
        #expect(listed.contains("\(other)  restorable  last active "), "\(listed)")
        await fixture.tearDown()
    }

    /// Two launches at once with one window to reopen: one reopens it,
    /// the other makes a new one; `scenes list` shows both open.
    @Test func twoLaunchesAtOnceGetTwoWindows() async throws {
        let fixture = try await SceneStoreFixture()
        let window = try #require(try await Self.launch([], ["push 1"], root: fixture.root).last?.scene)
        let launches = try (0..<2).map { _ in try RunningScenes(["run"], root: fixture.root) }
        for launch in launches { launch.send("show") }
        var scenes: [String] = []
        for launch in launches {
            let line = await launch.lines.first(within: .seconds(30)).flatMap(DemoLine.init)
            scenes.append(try #require(line?.scene))
        }
        #expect(Set(scenes).count == 2, "\(scenes)")
        #expect(scenes.contains(window))
        let listed = try await MultiProcessSupport.scenes(["list"], root: fixture.root).stdout
        #expect(listed.components(separatedBy: "open by pid").count - 1 == 2, "\(listed)")
        for launch in launches {
            launch.send("quit")
            #expect(await launch.exitStatus() == 0)
        }
        await fixture.tearDown()
    }
}

/// The same on a terminal, in tmux.
// Hang guard: its slowest test took 2 s in its layer here, 57 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
struct DemoWindowScreenTests {
    private static func launch(in pane: TmuxPane, root: URL, arguments: String = "") throws {
        try pane.typeLine("SCENES_ROOT='\(root.path)' '\(scenesExecutable.path)' run \(arguments)")
    }

    @Test func xThenYClosesTheWindowForGood() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }
        try Self.launch(in: pane, root: fixture.root)
        let first = try #require(try await pane.waitFor("[1 Mixed]", "q quit"), "\(pane.screen)")
        let window = try #require(first.firstMatch(of: /scene (w-[0-9a-f]+)/)?.1).description
        try pane.press("Enter")
        #expect(try await pane.waitFor("Mixed / Number 1") != nil)
        try pane.press("x")
        #expect(try await pane.waitFor("Close this window for good?") != nil, "\(pane.screen)")
        try pane.press("n")
        #expect(try await pane.waitFor { !$0.contains("Close this window") && $0.contains("Mixed / Number 1") } != nil)
        try pane.press("x")
        #expect(try await pane.waitFor("Close this window for good?") != nil)
        try pane.press("y")
        let exited = try await pane.waitFor { _ in (try? pane.alternateScreenIsOn()) == false }
        #expect(exited != nil, "still running: \(pane.screen)")

        #expect(try await !MultiProcessSupport.scenes(["list"], root: fixture.root).stdout.contains(window))
        try Self.launch(in: pane, root: fixture.root)
        let next = try #require(try await pane.waitFor("[1 Mixed]", "q quit"), "\(pane.screen)")
        #expect(!next.contains(window), "a new window")
        #expect(next.contains("Path count: 0") || !next.contains("Mixed / Number 1"))
        try pane.press("q")
        await fixture.tearDown()
    }

    @Test func aKilledWindowComesBackWithANote() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }
        try Self.launch(in: pane, root: fixture.root)
        #expect(try await pane.waitFor("[1 Mixed]", "q quit") != nil, "\(pane.screen)")
        try pane.press("Enter")
        #expect(try await pane.waitFor("Mixed / Number 1") != nil)
        let demo = try #require(try pane.foregroundPID())
        kill(demo, SIGKILL)
        pane.stop()   // its terminal is left as the killed demo set it

        let next = try TmuxPane()
        defer { next.stop() }
        try Self.launch(in: next, root: fixture.root)
        let recovered = try await next.waitFor("Recovered this window", "Mixed / Number 1")
        #expect(recovered != nil, "\(next.screen)")
        try next.press("q")
        await fixture.tearDown()
    }

    /// Two windows on one scene: moving the highlight in one leaves the
    /// other's where it was, though the move is saved with the scene.
    @Test func theHighlightStaysInItsWindow() async throws {
        let fixture = try await SceneStoreFixture()
        let left = try TmuxPane()
        let right = try TmuxPane()
        defer {
            left.stop()
            right.stop()
        }
        try Self.launch(in: left, root: fixture.root, arguments: "--scene main")
        try Self.launch(in: right, root: fixture.root, arguments: "--scene main")
        #expect(try await left.waitFor("> Number 1", "q quit") != nil, "\(left.screen)")
        #expect(try await right.waitFor("> Number 1", "q quit") != nil, "\(right.screen)")
        try left.press("j", "j")
        #expect(try await left.waitFor("> Number 3") != nil)
        // The right window hears of the save (its status line says so) and keeps its highlight.
        let seen = try await right.waitFor("updated by pid")
        #expect(seen?.contains("> Number 1") == true, "\(right.screen)")
        try left.press("q")
        try right.press("q")
        await fixture.tearDown()
    }
}

// Hang guard: its slowest test took 13 s in its layer here, 61 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct PruneCommandTests {
    @Test func pruneClosesOnlyTheWindowsOlderThanTheAgeAndLeavesScenesByID() async throws {
        let fixture = try await SceneStoreFixture()
        let old = try await scenes(["run"], root: fixture.root, stdin: "push 1\n")
        let window = try #require(old.stdout.split(separator: "\n").compactMap { DemoLine(String($0)) }.last?.scene)
        _ = try await scenes(["run", "--scene", "main"], root: fixture.root, stdin: "push 2\n")

        #expect(try await scenes(["prune", "--older-than", "1d"], root: fixture.root).stdout == "")
        let pruned = try await scenes(["prune", "--older-than", "0s"], root: fixture.root)
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(pruned.stdout == "\(window)\n")
        #expect(try await scenes(["list"], root: fixture.root).stdout == "main\n")

        let bad = try await scenes(["prune", "--older-than", "soon"], root: fixture.root)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--older-than takes a number and s, m, h or d"))
        await fixture.tearDown()
    }
}
