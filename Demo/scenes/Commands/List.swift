import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the scenes that have state, and the windows `scenes run` keeps.",
        discussion: """
            Reads only: creates nothing. A window scene's line says whether a running process has it \
            open (by pid) or it is to be reopened (after a quit, or to recover after a crash), when it \
            was last active, its title and how many keys it holds. Windows' records it cannot read \
            (damaged, a symbolic link, a FIFO) are an error (exit status 1), not a list without \
            windows; the next command that writes moves them to quarantine.
            """)

    @OptionGroup var rootOptions: RootOptions
    @Flag(help: "Print one JSON array of {scene, generation, keys, window?}.") var json = false

    func run() async throws {
        let registry = try await rootOptions.openRegistry(readOnly: true)
        // Records that cannot be read fail the command: listed without
        // them, every window would look like a scene nobody kept.
        let sessions: [SceneSession]
        do {
            sessions = try await registry.sessions()
        } catch {
            try? await registry.close()
            throw failure("cannot read the windows' state: \(error)")
        }
        let windows = Dictionary(sessions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let ids = Set(try await registry.sceneIDs()).union(windows.keys).sorted()
        if json {
            var entries: [Entry] = []
            for id in ids {
                let store = try await registry.store(for: id)
                entries.append(Entry(
                    scene: id.rawValue, generation: store.generation, keys: store.snapshot.count,
                    window: windows[id].map(Entry.Window.init)))
            }
            emit(try jsonLine(entries))
        } else {
            for id in ids {
                guard let window = windows[id] else {
                    emit(id.rawValue)
                    continue
                }
                let keys = try await registry.store(for: id).snapshot.count
                emit(Self.line(window, keys: keys).terminalSafe)
            }
        }
        try await registry.close()
    }

    /// `w-…  open by pid 4711  last active 2026-11-25 08:10:03  "Notes"  3 keys`
    static func line(_ window: SceneSession, keys: Int) -> String {
        var parts = [window.id.rawValue, Entry.Window.describe(window.state)]
        parts.append("last active " + Self.timestamp(window.lastActive))
        if let title = window.title { parts.append(title.debugDescription) }
        parts.append(keys == 1 ? "1 key" : "\(keys) keys")
        return parts.joined(separator: "  ")
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    struct Entry: Encodable {
        let scene: String
        let generation: UInt64
        let keys: Int
        let window: Window?

        struct Window: Encodable {
            let state: String
            let pid: Int32?
            /// ISO 8601, UTC.
            let created: String
            let lastActive: String
            let title: String?

            init(_ session: SceneSession) {
                state = Self.describe(session.state)
                if case .open(let pid) = session.state { self.pid = pid } else { pid = nil }
                let iso = ISO8601DateFormatter()
                created = iso.string(from: session.created)
                lastActive = iso.string(from: session.lastActive)
                title = session.title
            }

            static func describe(_ state: SceneSession.State) -> String {
                switch state {
                case .open(let pid): pid.map { "open by pid \($0)" } ?? "open"
                case .restorable(.relaunch): "restorable"
                case .restorable(.recover): "restorable (recover)"
                }
            }
        }
    }
}
