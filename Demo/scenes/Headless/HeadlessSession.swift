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
        for await event in events {
            switch event {
            case .line(let text):
                switch await handle(text, state: &state) {
                case .handled: break
                case .quit: return nil
                case .outputClosed: return SIGPIPE
                }
            case .external:
                let reloaded = persistence.load().state.keeping(highlightsOf: state)
                let changed = line(for: reloaded, origin: .external) != line(for: state, origin: .external)
                state = reloaded
                if changed, !emitState(reloaded, origin: .external) { return SIGPIPE }
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

    private func handle(_ text: String, state: inout DemoState) async -> Outcome {
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
            return emitState(state, origin: .local) ? .handled : .outputClosed
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
        return emitState(state, origin: .local) ? .handled : .outputClosed
    }

    private func line(for state: DemoState, origin: StateLine.Origin) -> StateLine {
        StateLine(scene: scene.rawValue, state: state, catalog: persistence.catalog, origin: origin)
    }

    /// Prints the state line.
    /// - Returns: false when stdout is gone (`EPIPE`): the session ends.
    private func emitState(_ state: DemoState, origin: StateLine.Origin) -> Bool {
        let text: String
        do {
            text = try jsonLine(line(for: state, origin: origin))
        } catch {
            complain("cannot encode the state: \(error)")
            return true
        }
        guard let failed = writeLine(text) else { return true }
        if failed == EPIPE { return false }
        complain("cannot write the state: \(String(cString: strerror(failed)))")
        return true
    }

    private func complain(_ message: String) {
        writeError(message)
    }
}
