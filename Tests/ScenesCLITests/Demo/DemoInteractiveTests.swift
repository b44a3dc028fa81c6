import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Drives the full-screen `scenes run` inside tmux.
// Hang guard: its slowest test took 2 s in its layer here, 49 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
struct DemoInteractiveTests {
    /// Prints the terminal's icanon and echo flags after a marker.
    static let sttyProbe = #"echo "STTY:$(stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\n' ,)""#
    static let saneTerminal = "STTY:icanon,echo,"

    static func launch(in pane: TmuxPane, root: URL, scene: String = "main") throws {
        try pane.typeLine("SCENES_ROOT='\(root.path)' '\(scenesExecutable.path)' run --scene \(scene)")
    }

    /// Launches the demo and opens the Mixed root's first link.
    static func launchAndPushNumber1(in pane: TmuxPane, root: URL) async throws {
        try launch(in: pane, root: root)
        #expect(try await pane.waitFor("[1 Mixed]", "q quit") != nil, "\(pane.screen)")
        try pane.press("Enter")
        #expect(try await pane.waitFor("Mixed / Number 1") != nil, "\(pane.screen)")
    }

    @Test func navigateQuitAndRelaunchRestoresTheScreens() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }

        try Self.launch(in: pane, root: fixture.root)
        let first = try await pane.waitFor("[1 Mixed]", "2 Books", "3 Library", "scene main", "q quit")
        #expect(first != nil, "no tab bar: \(pane.screen)")
        #expect(try pane.alternateScreenIsOn())

        // Mixed: move to "Number 2" and open it (a push).
        try pane.press("j", "Enter")
        #expect(try await pane.waitFor("Mixed / Number 2", "Path count: 1") != nil, "\(pane.screen)")
        // Books: open Dune, then its first suggestion.
        try pane.press("2")
        #expect(try await pane.waitFor("[2 Books]", "> Dune (Frank Herbert)") != nil)
        try pane.press("Enter")
        #expect(try await pane.waitFor("Books / Dune", "> Suggestion: Foundation") != nil)
        try pane.press("Enter")
        #expect(try await pane.waitFor("Books / Dune / Foundation") != nil)

        try pane.press("q")
        let restored = try await pane.waitFor { _ in try !pane.alternateScreenIsOn() }
        #expect(restored != nil, "the alternate screen is still on")
        try pane.typeLine(Self.sttyProbe)
        #expect(try await pane.waitFor(Self.saneTerminal) != nil, "terminal left raw: \(pane.screen)")

        try Self.launch(in: pane, root: fixture.root)
        let relaunched = try await pane.waitFor("[2 Books]", "Books / Dune / Foundation", "> Suggestion: Solaris")
        #expect(relaunched != nil, "\(pane.screen)")
        // The Mixed stack and the link selected on its root came back too.
        try pane.press("1")
        #expect(try await pane.waitFor("[1 Mixed]", "Mixed / Number 2") != nil)
        try pane.press("b")
        #expect(try await pane.waitFor("> Number 2", "Path count: 0") != nil, "\(pane.screen)")
        try pane.press("q")
        #expect(try await pane.waitFor { _ in try !pane.alternateScreenIsOn() } != nil)
    }

    /// `f` brings back what `b` left, and the status line counts the
    /// forward entries.
    @Test func backThenForwardOnScreen() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }
        try await Self.launchAndPushNumber1(in: pane, root: fixture.root)
        #expect(try await pane.waitFor("forward 0") != nil, "\(pane.screen)")
        try pane.press("b")
        #expect(try await pane.waitFor("Path count: 0", "forward 1", "f forward") != nil, "\(pane.screen)")
        try pane.press("f")
        #expect(try await pane.waitFor("Mixed / Number 1", "forward 0") != nil, "\(pane.screen)")
        try pane.press("q")
        #expect(try await pane.waitFor { _ in try !pane.alternateScreenIsOn() } != nil)
    }

    /// Ctrl-C quits like SIGINT: the scene is saved and the exit status is 130.
    @Test func controlCSavesAndExits130() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }
        try await Self.launchAndPushNumber1(in: pane, root: fixture.root)
        try pane.press("C-c")
        #expect(try await pane.waitFor { _ in try !pane.alternateScreenIsOn() } != nil)
        try pane.typeLine("echo STATUS:$?")
        #expect(try await pane.waitFor("STATUS:130") != nil, "\(pane.screen)")
        let path = try await scenes(["get", "--scene", "main", "mixed.path"], root: fixture.root).stdout
        #expect(path.contains(#""value":1"#), "\(path)")
    }

    /// A warning the library logs while the screen is the demo's goes to
    /// the log file and the status line, never over the screen.
    @Test func warningsGoToTheLogFileAndTheStatusLine() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }
        try await Self.launchAndPushNumber1(in: pane, root: fixture.root)

        // Another process damages the scene file: the reload moves it to
        // quarantine, and the library warns.
        let file = fixture.root.appendingPathComponent("main.scene")
        let temporary = fixture.root.appendingPathComponent("damaged.tmp")
        try Data("not a scene".utf8).write(to: temporary)
        #expect(rename(temporary.path, file.path) == 0)
        let shown = try await pane.waitFor("warning:", "damaged scene file moved to quarantine")
        #expect(shown != nil, "\(pane.screen)")
        #expect(!pane.screen.contains("warning SceneStore"), "a log line over the screen: \(pane.screen)")
        let log = try String(contentsOf: fixture.root.appendingPathComponent("log/scenes-run.log"), encoding: .utf8)
        #expect(log.contains("damaged scene file moved to quarantine"))
        try pane.press("q")
        #expect(try await pane.waitFor { _ in try !pane.alternateScreenIsOn() } != nil)
    }

    @Test func sigtermFlushesTheSceneAndRestoresTheTerminal() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }

        try Self.launch(in: pane, root: fixture.root)
        #expect(try await pane.waitFor("[1 Mixed]", "scene main") != nil, "\(pane.screen)")
        try pane.press("3", "Enter")
        #expect(try await pane.waitFor("Library / Blue in Green") != nil, "\(pane.screen)")
        try pane.press("s")
        #expect(try await pane.waitFor("Library / Settings") != nil)

        let pid = try #require(try pane.foregroundPID())
        kill(pid, SIGTERM)
        #expect(try await pane.waitFor { _ in try !pane.alternateScreenIsOn() } != nil, "the alternate screen is still on")
        try pane.typeLine(Self.sttyProbe)
        #expect(try await pane.waitFor(Self.saneTerminal) != nil, "terminal left raw: \(pane.screen)")

        let after = try await headless(["show"], root: fixture.root)
        let line = try #require(after.lines.first)
        #expect(line.tab == "library")
        #expect(line.stacks.library == [["settings": .flag(true)]])
    }

    @Test func anotherProcessesChangesAreMirroredOnScreen() async throws {
        let fixture = try await SceneStoreFixture()
        let pane = try TmuxPane()
        defer { pane.stop() }

        try Self.launch(in: pane, root: fixture.root)
        #expect(try await pane.waitFor("[1 Mixed]", "no changes from other processes yet") != nil, "\(pane.screen)")
        let other = try RunningScenes(["run", "--scene", "main"], root: fixture.root)
        other.send("tab books")
        other.send("open 5")
        let mirrored = try await pane.waitFor("[2 Books]", "Books / Hyperion", "updated by pid \(other.pid)")
        #expect(mirrored != nil, "\(pane.screen)")
        other.send("quit")
        _ = await other.exitStatus()
        try pane.press("q")
    }
}
