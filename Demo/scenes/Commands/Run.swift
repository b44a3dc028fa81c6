import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the three-tab navigation demo on a scene.",
        discussion: """
            On a terminal: a full-screen UI (arrows or j/k move, Enter opens, b/Left back, \
            f forward, r pop to root, s settings, 1 2 3 or Tab switch tabs, x close the window \
            for good, q quit and keep it). Two processes on one scene mirror each other.

            Without --scene, the demo is a multi-window app: each launch reopens the most \
            recent window that no running demo has open (after a crash, with a note), or \
            makes a new one; --new always makes one. q, Ctrl-C, SIGTERM and SIGHUP quit and \
            keep the window for the next launch; x closes it for good.

            With --headless, or when stdin is not a terminal: one command per line on stdin \
            (\(LineCommand.usage)) and one JSON state line per change on stdout.
            """
    )

    @OptionGroup var rootOptions: RootOptions
    @Option(name: .long, help: ArgumentHelp(
        "Open this scene, shared: two processes on one id mirror each other. Without it (and without --new), the most recent window nobody has open is reopened, or a new one made.",
        valueName: "id"))
    var scene: String?
    @Flag(help: "Open a new window (a new scene).") var new = false
    @Flag(help: "Read line commands from stdin and print JSON state lines, even on a terminal.")
    var headless = false

    func validate() throws {
        guard scene == nil || !new else { throw ValidationError("--scene and --new name two windows; give one") }
        if let scene {
            do {
                _ = try SceneID(scene)
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    func run() async throws {
        let registry = try await rootOptions.openRegistry(readOnly: false, watcher: .automatic)
        let catalog: LibraryCatalog
        do {
            catalog = try CatalogFile(root: rootOptions.rootURL()).load()
        } catch {
            throw failure("\(error)")
        }
        let (store, reason) = try await openWindow(in: registry)
        let id = store.id
        let persistence = DemoPersistence(store: store, catalog: catalog)
        let signal: Int32?
        if headless || isatty(STDIN_FILENO) == 0 || isatty(STDOUT_FILENO) == 0 {
            signal = await HeadlessSession(scene: id, persistence: persistence).run()
        } else {
            do {
                var session = InteractiveSession(
                    scene: id, persistence: persistence, watcher: registry.watcherKind,
                    logFile: try rootOptions.rootURL().appendingPathComponent("log/scenes-run.log"))
                if reason == .recover {
                    session.greeting = "Recovered this window: its last run ended without quitting (what it had saved is back)."
                }
                session.closeWindow = { try await registry.closeForGood(id) }
                signal = try await session.run()
            } catch {
                try? await registry.close()
                throw failure("\(error)")
            }
        }
        try await registry.close()
        if let signal { throw ExitCode(128 + signal) }
    }

    /// The window to show: the scene named, a new one, or the most recent
    /// one nobody has open (claimed, so two launches never show it both).
    private func openWindow(in registry: SceneRegistry) async throws -> (SceneStore, SceneRestoreReason?) {
        if let scene { return (try await registry.store(for: SceneID(scene)), nil) }
        if !new {
            for session in try await registry.scenesToRestore() {
                guard case .restorable(let reason) = session.state else { continue }
                if let store = try await registry.reopen(session.id) { return (store, reason) }
            }
        }
        return (try await registry.newScene(), nil)
    }
}
