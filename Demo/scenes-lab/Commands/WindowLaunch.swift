import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

/// One launch of a multi-window app: reopens the most recent window
/// nobody holds (or makes a new one), says which, then waits. For the
/// window lifecycle tests: many of them at once never get one window
/// twice; SIGKILL leaves the window to recover; SIGTERM or SIGHUP quits.
struct WindowLaunch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "window",
        abstract: "Reopen the latest free window scene or make one, then wait (for the lifecycle tests).",
        discussion: """
            Prints "ready" and waits for a line on stdin before choosing (so that many launches choose at \
            once), then prints "window ID REASON" (relaunch, recover or new) and sets --set KEY=INT without \
            flushing. Then reads lines: "quit" (or end of input, SIGTERM, SIGHUP) closes the registry, keeping \
            the window; "close" closes the window for good first.
            """
    )

    @OptionGroup var rootOptions: RootOptions
    @Option(help: "KEY=INT to set in the window's scene once it is open (not flushed).") var set: [String] = []
    @Option(help: "The title of a new window.") var title: String?

    func run() async throws {
        let registry = try await rootOptions.openRegistry(readOnly: false, watcher: .none)
        let quit = SignalEvents(SignalEvents.terminating) { _ in
            Task {
                try? await registry.close()
                Foundation.exit(0)
            }
        }
        defer { quit.cancel() }
        emit("ready")
        _ = await Task.detached { readLine() }.value
        var opened: (store: SceneStore, reason: String)?
        for session in try await registry.scenesToRestore() {
            guard case .restorable(let reason) = session.state else { continue }
            if let store = try await registry.reopen(session.id) {
                opened = (store, "\(reason)")
                break
            }
        }
        let store: SceneStore
        let reason: String
        if let opened {
            (store, reason) = opened
        } else {
            (store, reason) = (try await registry.newScene(title: title), "new")
        }
        for assignment in set {
            let parts = assignment.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]) else { throw ValidationError("--set takes KEY=INT") }
            try store.set(value, forKey: String(parts[0]))
        }
        emit("window \(store.id) \(reason)")
        while let line = await Task.detached(operation: { readLine() }).value {
            if line == "close" { try await registry.closeForGood(store.id) }
            if line == "quit" || line == "close" { break }
        }
        try await registry.close()
        emit("quit")
    }
}
