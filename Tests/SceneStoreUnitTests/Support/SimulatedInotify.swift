import Foundation
@testable import SceneStore
import SystemPackage

/// inotify over a ``SimulatedFileSystem``: each watch of a directory
/// queues an event for every name of it that is created, written and
/// closed, renamed, exchanged, linked or unlinked, and hears nothing until
/// the simulation delivers the queue (``SimulatedFileSystem/takeEvents(_:of:)``),
/// as the seed decides: each event on its own, consecutive equal events
/// merged (as the kernel merges them), or all dropped for one overflow
/// (`IN_Q_OVERFLOW`, a rescan). Handlers run on the delivering task, as
/// they would on the watcher's thread.
struct SimulatedInotify: FileWatcher {
    let system: SimulatedFileSystem

    struct Watch: Sendable {
        let directory: Int
        let handler: @Sendable (FileWatchEvent) -> Void
        var queued: [FileWatchEvent] = []
    }

    var kind: WatcherKind { .inotify }

    func watch(directory: URL, handler: @escaping @Sendable (FileWatchEvent) -> Void) throws -> FileWatchToken {
        try system.world.withLock { world throws(SceneStoreError) in
            let (parent, name) = try mapErrno(directory.path) { () throws(Errno) in try world.parent(of: directory.path, in: nil) }
            guard let number = name.isEmpty ? parent : world.inodes[parent]?.names[name], world.inodes[number]?.isDirectory == true
            else { throw .io(syscall: "inotify_add_watch", path: directory.path, errno: .noSuchFileOrDirectory) }
            defer { world.nextWatch += 1 }
            world.watches[world.nextWatch] = Watch(directory: number, handler: handler)
            return FileWatchToken(id: world.nextWatch)
        }
    }

    func cancel(_ token: FileWatchToken) {
        system.world.withLock { _ = $0.watches.removeValue(forKey: token.id) }
    }

    private func mapErrno<Result>(_ path: String, _ call: () throws(Errno) -> Result) throws(SceneStoreError) -> Result {
        do throws(Errno) { return try call() } catch { throw .io(syscall: "inotify_add_watch", path: path, errno: error) }
    }
}

extension SimulatedFileSystem {
    /// How ``takeEvents(_:of:)`` hands the queued events on.
    enum Delivery: Sendable, CaseIterable {
        case each, merged, overflow
    }

    /// The watches that have events queued, in the order they were made.
    var watchesWithEvents: [UInt64] {
        world.withLock { world in world.watches.keys.sorted().filter { world.watches[$0]?.queued.isEmpty == false } }
    }

    /// Takes the events queued for watch `token`, as `delivery` says, with
    /// the handler to deliver them to; with ``lossyInotify``, the last one
    /// is dropped without a word. The simulation hands them on one by one
    /// and waits for what each started, so no two stores run at once.
    func takeEvents(_ delivery: Delivery, of token: UInt64) -> (handler: @Sendable (FileWatchEvent) -> Void, events: [FileWatchEvent])? {
        world.withLock { world in
            guard let watch = world.watches[token], !watch.queued.isEmpty else { return nil }
            var events = watch.queued
            world.watches[token]?.queued = []
            if lossyInotify { events.removeLast() }
            switch delivery {
            case .each: break
            case .merged: events = events.enumerated().filter { $0.offset == 0 || events[$0.offset - 1] != $0.element }.map(\.element)
            case .overflow: events = [.rescan]
            }
            return (watch.handler, events)
        }
    }

    /// Whether any watch has events queued.
    var eventsQueued: Bool {
        world.withLock { $0.watches.values.contains { !$0.queued.isEmpty } }
    }
}

extension SimulatedFileSystem.World {
    /// `name` in directory `parent` changed: an event for each watch of it.
    mutating func changed(_ parent: Int, _ name: String) {
        for token in watches.keys where watches[token]?.directory == parent {
            watches[token]?.queued.append(.changed(name: name))
        }
    }
}
