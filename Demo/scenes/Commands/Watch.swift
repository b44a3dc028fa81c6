import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each change of a scene as it happens, until interrupted.",
        discussion: "One line per change: key, old and new value, origin, writer pid, generation."
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @OptionGroup var watcherOption: WatcherOption
    @Flag(help: "Print one JSON object per line.") var json = false
    @Flag(help: "Print Data as base64 even when it holds a stored model or a navigation path.")
    var raw = false

    func run() async throws {
        let id = try sceneOption.sceneID()
        let registry = try await watcherOption.openRegistry(rootOptions)
        let store = try await registry.store(for: id)
        // Subscribed before "ready": a change made once a script has read
        // that line is always printed.
        let updates = store.updates()
        if json {
            emit(try jsonLine(WatchLine.ready(scene: id, watcher: registry.watcherKind, generation: store.generation)))
        } else {
            let root = registry.location.terminalSafe
            emit("watching scene \(id) in \(root) (\(registry.watcherKind?.description ?? "no watcher"))")
        }
        // The stream goes on after a discard; it ends only if the store closes.
        for await update in updates {
            for line in WatchLine.lines(of: update, scene: id) {
                emit(json ? try jsonLine(line) : line.text(raw: raw))
            }
        }
    }
}

/// One line of `scenes watch`.
struct WatchLine: Encodable {
    var event: String
    var scene: String
    var key: String?
    var old: SceneValue?
    var new: SceneValue?
    var origin: String?
    var pid: Int32?
    var generation: UInt64?
    var watcher: String?
    var detail: String?

    static func ready(scene: SceneID, watcher: WatcherKind?, generation: UInt64) -> WatchLine {
        WatchLine(event: "ready", scene: scene.rawValue, generation: generation, watcher: watcher?.description ?? "none")
    }

    init(event: String, scene: String, key: String? = nil, old: SceneValue? = nil, new: SceneValue? = nil,
         origin: String? = nil, pid: Int32? = nil, generation: UInt64? = nil, watcher: String? = nil, detail: String? = nil) {
        self.event = event
        self.scene = scene
        self.key = key
        self.old = old
        self.new = new
        self.origin = origin
        self.pid = pid
        self.generation = generation
        self.watcher = watcher
        self.detail = detail
    }

    /// One line per change of a `.changed` update, one for any other.
    static func lines(of update: SceneUpdate, scene: SceneID) -> [WatchLine] {
        switch update {
        case .changed(let changes):
            return changes.map { change in
                let (origin, pid) = describe(change.origin)
                return WatchLine(event: "changed", scene: scene.rawValue, key: change.key, old: change.oldValue,
                                 new: change.newValue, origin: origin, pid: pid, generation: change.generation)
            }
        case .discarded(let origin):
            let (origin, pid) = describe(origin)
            return [WatchLine(event: "discarded", scene: scene.rawValue, origin: origin, pid: pid)]
        case .quarantined(let recovery):
            return [WatchLine(event: "quarantined", scene: scene.rawValue, detail: "\(recovery.reason); moved to \(recovery.quarantinedFile)")]
        case .saveFailed(let error):
            return [WatchLine(event: "save-failed", scene: scene.rawValue, detail: "\(error)")]
        }
    }

    private static func describe(_ origin: SceneChangeOrigin) -> (String, Int32?) {
        switch origin {
        case .local: ("local", getpid())
        case .external(let pid): ("external", pid)
        }
    }

    /// The plain-text form, control characters escaped (see
    /// `String.terminalSafe`); a stored model or a navigation path as its
    /// JSON unless `raw`.
    func text(raw: Bool = false) -> String {
        func shown(_ value: SceneValue) -> String {
            (raw ? value.description : value.readableDescription).terminalSafe
        }
        switch event {
        case "changed":
            let from = old.map(shown) ?? "(none)"
            let to = new.map(shown) ?? "(removed)"
            var where_ = origin ?? ""
            if let pid { where_ += ", pid \(pid)" }
            if let generation { where_ += ", generation \(generation)" }
            return "\(scene)  \((key ?? "").terminalSafe): \(from) -> \(to)  (\(where_))"
        case "discarded":
            return "\(scene)  discarded (\(origin ?? "")\(pid.map { ", pid \($0)" } ?? ""))"
        default:
            return "\(scene)  \(event): \((detail ?? "").terminalSafe)"
        }
    }
}
