import Foundation
import SceneStore
import ScenesCLIKit

/// `scenes run` without a terminal: line commands on stdin, one JSON state
/// line on stdout per change (see ``StateLine``), errors on stderr.
struct HeadlessSession {
    let scene: SceneID
    let persistence: DemoPersistence

    private enum Event: Sendable {
        case line(String)
        case endOfInput
        case external
        case signal(Int32)
    }

    /// Runs until `quit`, the end of stdin, a terminating signal, or the
    /// reader of stdout going away: SIGPIPE is ignored so that a write
    /// fails with `EPIPE`, which ends the session like SIGPIPE would have,
    /// but lets the caller flush the scene first.
    /// - Returns: the signal that ended the session, if one did (SIGPIPE
    ///   for a closed stdout).
    func run() async -> Int32? {
        signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, SIG_DFL) }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let external = persistence.externalChanges()
        let signals = SignalEvents(SignalEvents.terminating) { continuation.yield(.signal($0)) }
        defer { signals.cancel() }
        let follower = Task {
            for await _ in external { continuation.yield(.external) }
        }
        defer { follower.cancel() }
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(.line(line)) }
            continuation.yield(.endOfInput)
        }

        var state = restore()
        // The state line last printed (its origin set to external), to
        // which a change from another process is compared: one line built
        // per change, not three.
        var shown = line(for: state, origin: .external)
        for await event in events {
            switch event {
            case .line(let text):
                switch await handle(text, state: &state, shown: &shown) {
                case .handled: break
                case .quit: return nil
                case .outputClosed: return SIGPIPE
                }
            case .external:
                state = persistence.load().state.keeping(highlightsOf: state)
                let next = line(for: state, origin: .external)
                if next != shown, !emit(next, shown: &shown) { return SIGPIPE }
            case .endOfInput:
                return nil
            case .signal(let number):
                return number
            }
        }
        return nil
    }

    private func restore() -> DemoState {
        let (state, dropped) = persistence.load()
        if !dropped.isEmpty {
            complain("restored scene \(scene) without \(dropped.count) element(s): " + dropped.joined(separator: "; "))
            do {
                try persistence.dropRemovedLibraryItems(from: state)
            } catch {
                complain("cannot drop the removed Library items: \(error)")
            }
        }
        return state
    }

    private enum Outcome { case handled, quit, outputClosed }

    private func handle(_ text: String, state: inout DemoState, shown: inout StateLine) async -> Outcome {
        let command: LineCommand
        do {
            guard let parsed = try LineCommand(parsing: text) else { return .handled }
            command = parsed
        } catch {
            complain(error.message)
            return .handled
        }
        let previous = state
        switch command {
        case .quit:
            return .quit
        case .show:
            return emit(line(for: state, origin: .local), shown: &shown) ? .handled : .outputClosed
        case .tab(let tab):
            state.perform(.selectTab(tab))
        case .open(let number):
            guard state.open(link: number - 1, in: persistence.catalog) else {
                let count = state.screen(in: persistence.catalog).links.count
                complain("no link \(number) on this screen (it has \(count))")
                return .handled
            }
        case .push(let value):
            guard state.tab == .mixed else {
                complain("push works on the Mixed tab only (this is \(state.tab.rawValue))")
                return .handled
            }
            state.perform(.pushMixed(value))
        case .back:
            state.perform(.back)
        case .forward:
            state.perform(.forward)
        case .root:
            state.perform(.popToRoot)
        case .settings:
            state.perform(.showSettings)
        }
        do {
            try await persistence.save(&state, previous: previous)
        } catch {
            // What the store holds, not the state before: an edit it
            // keeps pending is saved later (the next save, or quitting).
            complain("cannot save: \(error)")
            state = persistence.load().state.keeping(highlightsOf: state)
        }
        return emit(line(for: state, origin: .local), shown: &shown) ? .handled : .outputClosed
    }

    private func line(for state: DemoState, origin: StateLine.Origin) -> StateLine {
        StateLine(scene: scene.rawValue, state: state, catalog: persistence.catalog, origin: origin)
    }

    /// Prints `line`, and keeps it in `shown`.
    /// - Returns: false when stdout is gone (`EPIPE`): the session ends.
    private func emit(_ line: StateLine, shown: inout StateLine) -> Bool {
        shown = line
        shown.origin = .external
        guard let failed = writeLine(line.json) else { return true }
        if failed == EPIPE { return false }
        complain("cannot write the state: \(String(cString: strerror(failed)))")
        return true
    }

    private func complain(_ message: String) {
        writeError(message)
    }
}
