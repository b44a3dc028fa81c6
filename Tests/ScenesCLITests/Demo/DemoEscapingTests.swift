import Foundation
import SceneStoreTesting
import Testing

/// The full-screen demo shows stored strings escaped: a Mixed element
/// holding an escape sequence is printed as text, not obeyed.
// Hang guard: its slowest test took 2 s in its layer here, 55 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
struct DemoEscapingTests {
    @Test func storedEscapeSequencesArePrintedNotObeyed() async throws {
        let fixture = try await SceneStoreFixture()
        let pushed = try await headless(["push A\u{1B}[7mB\u{1B}[0m"], root: fixture.root)
        #expect(pushed.status == 0, "\(pushed.stderr)")

        let pane = try TmuxPane()
        defer { pane.stop() }
        try DemoInteractiveTests.launch(in: pane, root: fixture.root)
        let shown = try await pane.waitFor(#"Mixed / Text "A\u{1B}[7mB\u{1B}[0m""#)
        #expect(shown != nil, "\(pane.screen)")
        try pane.press("q")
        #expect(try await pane.waitFor { _ in try !pane.alternateScreenIsOn() } != nil)
    }
}
