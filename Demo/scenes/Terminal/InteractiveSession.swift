import Foundation
import SceneStore
import ScenesCLIKit

/// `scenes run` on a terminal: the full-screen UI. One loop owns the state;
/// keys, changes from other processes, resizes, signals and clock ticks
/// reach it as events.
struct InteractiveSession {
    let scene: SceneID
    let persistence: DemoPersistence
    let watcher: WatcherKind?
    /// Where logs go while the session owns the screen; the latest warning
    /// shows in the status line.
    let logFile: URL
    /// What to say first (a window recovered after a crash), if anything.
    var greeting: String? = nil
    /// Closes this window for good (`x`, then `y`).
    var closeWindow: @Sendable () async throws -> Void = {}
    /// Who changed the scene from outside last, and when (the status line).
    let lastExternalChange = Locked<ExternalChange?>(nil)

    typealias ExternalChange = (writerPID: Int32?, at: ContinuousClock.Instant)

    private enum Event: Sendable {
        case key(Key)
        case endOfInput
        case external
        case resize
        case tick
        case signal(Int32)
    }

    /// Runs until `q`, the end of input, or a terminating signal; the
    /// terminal is restored on every way out, a thrown error included.
    /// - Returns: the signal that ended the session, if one did.
    /// - Throws: ``TerminalMode/Failure`` when stdin is not a terminal.
    func run() async throws -> Int32? {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let external = persistence.externalChanges()
        let (restored, dropped) = persistence.load()
        var state = restored
        var notice = greeting
        var confirmingClose = false
        if !dropped.isEmpty {
            notice = "Restored without \(dropped.count) element(s) no longer available: " + dropped.joined(separator: "; ")
            try? persistence.dropRemovedLibraryItems(from: state)
        }

        try? LogRouting.toFile(logFile)
        defer { LogRouting.toStandardError() }
        let terminal = try TerminalMode()
        defer { terminal.restore() }
        let signals = SignalEvents(SignalEvents.terminating) { continuation.yield(.signal($0)) }
        let resizes = SignalEvents([SIGWINCH]) { _ in continuation.yield(.resize) }
        defer {
            signals.cancel()
            resizes.cancel()
        }
        let follower = Task { [lastExternalChange] in
            for await writer in external {
                lastExternalChange.withLock { $0 = (writer, .now) }
                continuation.yield(.external)
            }
        }
        let ticker = Task { [lastExternalChange] in
            while !Task.isCancelled {
                let recent = lastExternalChange.withLock { $0 }.map { ContinuousClock.now - $0.at < .seconds(10) } ?? false
                try? await Task.sleep(for: recent ? .milliseconds(100) : .seconds(1))
                continuation.yield(.tick)
            }
        }
        defer {
            follower.cancel()
            ticker.cancel()
        }
        // Stopped before the terminal is restored (defers run in reverse).
        let keys = KeyReader { key in continuation.yield(key.map(Event.key) ?? .endOfInput) }
        defer { keys.stop() }

        var screen = ScreenWriter()
        screen.draw(frame(state, notice: notice))
        for await event in events {
            switch event {
            case .key(let key):
                if confirmingClose {
                    confirmingClose = false
                    notice = nil
                    if key == .character("y") {
                        do {
                            try await closeWindow()
                            return nil
                        } catch {
                            notice = "Cannot close the window: \(error)"
                        }
                    }
                    screen.draw(frame(state, notice: notice))
                    continue
                }
                guard let action = KeyBinding.action(for: key) else { continue }
                if action == .quit { return nil }
                if action == .interrupt { return SIGINT }
                if action == .closeWindow {
                    confirmingClose = true
                    notice = "Close this window for good? Its state is deleted (q keeps it for the next launch). y/n"
                    screen.draw(frame(state, notice: notice))
                    continue
                }
                let previous = state
                apply(action, to: &state)
                notice = nil
                do {
                    try await persistence.save(&state, previous: previous)
                } catch {
                    // What the store holds: an edit it keeps pending is
                    // saved later (the next save, or quitting).
                    notice = "Cannot save: \(error)"
                    state = persistence.load().state.keeping(highlightsOf: state)
                }
            case .external:
                // The highlight belongs to this window: another window's
                // moves are not followed.
                state = persistence.load().state.keeping(highlightsOf: state)
            case .resize:
                screen.invalidate()
            case .tick:
                break
            case .endOfInput:
                return nil
            case .signal(let number):
                return number
            }
            screen.draw(frame(state, notice: notice))
        }
        return nil
    }

    private func apply(_ action: KeyBinding.Action, to state: inout DemoState) {
        let catalog = persistence.catalog
        switch action {
        case .move(let offset): state.moveSelection(by: offset, in: catalog)
        case .open: _ = state.open(link: state.selectedLink(in: catalog), in: catalog)
        case .perform(let demoAction): state.perform(demoAction)
        case .nextTab: state.perform(.selectTab(state.tab.next))
        case .quit, .interrupt, .closeWindow: break
        }
    }

    private func frame(_ state: DemoState, notice: String?) -> Frame {
        let size = TerminalMode.size()
        let status = Renderer.Status(
            scene: scene.rawValue,
            watcher: watcher?.description ?? "no watcher",
            pid: getpid(),
            lastExternalChange: lastExternalChange.withLock { $0 }.map(Self.describe),
            notice: notice,
            warning: LogRouting.latestWarning)
        return Renderer().frame(
            state: state, catalog: persistence.catalog, status: status, rows: size.rows, columns: size.columns)
    }

    /// "updated by pid N, 0.4 s ago".
    static func describe(_ change: ExternalChange) -> String {
        let age = ContinuousClock.now - change.at
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        let ago = seconds < 10
            ? String(format: "%.1f s ago", seconds)
            : seconds < 120 ? "\(Int(seconds)) s ago" : "\(Int(seconds / 60)) min ago"
        return "updated by " + (change.writerPID.map { "pid \($0)" } ?? "another process") + ", " + ago
    }
}

/// Writes a frame only when it differs from the one on screen: one write
/// per frame, nothing when idle.
struct ScreenWriter {
    private var shown: String?

    mutating func draw(_ frame: Frame) {
        let size = TerminalMode.size()
        let text = frame.rendered(columns: size.columns, rows: size.rows)
        guard text != shown else { return }
        TerminalOutput.write(shown == nil ? ANSI.clearScreen + text : text)
        shown = text
    }

    /// Forgets what is on screen (after a resize): the next frame clears
    /// and redraws everything.
    mutating func invalidate() {
        shown = nil
    }
}
