import Foundation

/// Something that happened in a watched directory.
package enum FileWatchEvent: Sendable, Equatable {
    /// The entry `name` in the watched directory was created, replaced
    /// (`IN_MOVED_TO`, `IN_CLOSE_WRITE`), deleted or moved away
    /// (`IN_DELETE`, `IN_MOVED_FROM`). The receiver re-reads it to learn which.
    case changed(name: String)
    /// Events may have been lost (`IN_Q_OVERFLOW`, a re-created directory, a
    /// watcher that fell back): the receiver must re-read everything it holds.
    case rescan
    /// The watcher can no longer deliver events for this interest (inotify
    /// failed); the interest is dropped. The
    /// receiver must watch by other means and re-read everything it holds.
    case unavailable(reason: String)
}

/// Which mechanism delivers file events to a registry.
public enum WatcherKind: Sendable, Equatable, CustomStringConvertible {
    /// The name of the process-wide inotify thread as the kernel shows it
    /// (`/proc/self/task/*/comm`), for diagnostics and tools that watch it.
    package static let inotifyThreadName = "SceneStore.inot"

    /// libinotifytools on the one process-wide watcher thread.
    case inotify
    /// Every open scene read again at a fixed interval.
    case polling(interval: Duration)
    /// A database's change notifications (PostgreSQL `LISTEN`), for
    /// scenes kept in a database rather than in files.
    case databaseNotifications

    public var description: String {
        switch self {
        case .inotify: "inotify"
        case .polling(let interval): "polling every \(interval)"
        case .databaseNotifications: "database notifications"
        }
    }
}

/// A handle for one registered interest; pass it back to ``FileWatcher/cancel(_:)``.
package struct FileWatchToken: Sendable, Hashable {
    package let id: UInt64
    package init(id: UInt64) { self.id = id }
}

/// The seam between the store and whatever tells it that files changed.
///
/// Contract for conformers:
/// * `watch` registers interest in the entries of one directory and returns at
///   once (within a millisecond or two), even while the watcher's thread waits.
/// * The handler is called on the watcher's own thread, never concurrently
///   with itself for the same token, and must return quickly (hop elsewhere
///   to do I/O).
/// * After `cancel` returns, the handler is not called again for that token.
/// * Several interests in one directory do not disturb each other.
package protocol FileWatcher: Sendable {
    /// The mechanism in use, for diagnostics.
    var kind: WatcherKind { get }

    /// Starts delivering events about the entries of `directory` to `handler`.
    /// - Throws: ``SceneStoreError`` when the directory cannot be watched.
    func watch(
        directory: URL,
        handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) throws -> FileWatchToken

    /// Stops delivering events for `token`. Idempotent.
    func cancel(_ token: FileWatchToken)
}
