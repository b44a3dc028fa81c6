import Foundation
import Logging

/// How a registry learns that scene files changed on disk.
public enum FileWatcherPreference: Sendable, Equatable {
    /// inotify where it works (Linux), falling back to polling every 250 ms
    /// when it cannot serve (watch or instance limit, descriptor above 1023).
    case automatic
    /// inotify only; registering interest fails when it cannot serve.
    /// On platforms without inotify, polling every 250 ms.
    case inotify
    /// `stat` of the directory's entries every `interval`: for network file
    /// systems, where inotify does not see writes made on other machines.
    case polling(interval: Duration)
    /// No watcher at all, and no thread for one: changes by other processes
    /// are seen only when a save merges them. For one-shot tools that read
    /// or write once and exit.
    case none
}

/// The polling interval used when inotify cannot serve.
package let defaultFallbackPollingInterval: Duration = .milliseconds(250)

/// The watcher for `preference`, or `nil` for ``FileWatcherPreference/none``.
///
/// - Parameters:
///   - preference: the caller's choice.
///   - logger: where a fallback to polling is reported.
package func makeFileWatcher(_ preference: FileWatcherPreference, logger: Logger) -> (any FileWatcher)? {
    switch preference {
    case .automatic:
        #if os(Linux)
        return FallbackWatcher(primary: InotifyWatcher.shared, logger: logger)
        #else
        return PollingWatcher(interval: defaultFallbackPollingInterval)
        #endif
    case .inotify:
        #if os(Linux)
        return InotifyWatcher.shared
        #else
        logger.notice("inotify is not available on this platform; polling", metadata: [
            "interval": "\(defaultFallbackPollingInterval)",
        ])
        return PollingWatcher(interval: defaultFallbackPollingInterval)
        #endif
    case .polling(let interval):
        return PollingWatcher(interval: interval)
    case .none:
        return nil
    }
}

/// A ``FileWatcher`` that uses `primary` until it reports
/// ``SceneStoreError/watcherUnavailable(reason:)``, then polls.
///
/// The switch is one-way and logged once at `.warning`: after it, every new
/// interest is served by a ``PollingWatcher`` and ``kind`` says so; interests
/// that `primary` already serves keep running there. Other errors from
/// `primary` (a missing directory, no permission) are thrown, not absorbed.
/// Handlers run on whichever watcher serves the interest.
package final class FallbackWatcher: FileWatcher {
    private let primary: any FileWatcher
    private let fallbackInterval: Duration
    private let logger: Logger
    private let state = Locked(State())

    private struct State {
        var fallback: PollingWatcher?
        var nextTokenID: UInt64 = 1
        var routes: [UInt64: (watcher: any FileWatcher, token: FileWatchToken)] = [:]
    }

    /// - Parameters:
    ///   - primary: the preferred watcher (``InotifyWatcher/shared`` in production).
    ///   - fallbackInterval: the polling interval after the switch.
    ///   - logger: where the switch is reported.
    package init(
        primary: any FileWatcher,
        fallbackInterval: Duration = defaultFallbackPollingInterval,
        logger: Logger
    ) {
        self.primary = primary
        self.fallbackInterval = fallbackInterval
        self.logger = logger
    }

    /// `primary`'s kind until the switch, then polling.
    package var kind: FileWatcherKind {
        state.withLock { $0.fallback?.kind } ?? primary.kind
    }

    package func watch(
        directory: URL,
        handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) throws -> FileWatchToken {
        let watcher: any FileWatcher
        let inner: FileWatchToken
        if let fallback = state.withLock({ $0.fallback }) {
            watcher = fallback
            inner = try fallback.watch(directory: directory, handler: handler)
        } else {
            do {
                inner = try primary.watch(directory: directory, handler: handler)
                watcher = primary
            } catch SceneStoreError.watcherUnavailable(let reason) {
                let fallback = degrade(reason: reason)
                inner = try fallback.watch(directory: directory, handler: handler)
                watcher = fallback
            }
        }
        return state.withLock { state in
            let id = state.nextTokenID
            state.nextTokenID += 1
            state.routes[id] = (watcher, inner)
            return FileWatchToken(id: id)
        }
    }

    package func cancel(_ token: FileWatchToken) {
        guard let route = state.withLock({ $0.routes.removeValue(forKey: token.id) }) else { return }
        route.watcher.cancel(route.token)
    }

    /// Switches to polling (once) and returns the polling watcher.
    private func degrade(reason: String) -> PollingWatcher {
        let (watcher, switched) = state.withLock { state in
            if let fallback = state.fallback { return (fallback, false) }
            let fallback = PollingWatcher(interval: fallbackInterval)
            state.fallback = fallback
            return (fallback, true)
        }
        if switched {
            logger.warning("file watcher degraded to polling", metadata: [
                "from": "\(primary.kind)",
                "interval": "\(fallbackInterval)",
                "reason": "\(reason)",
            ])
        }
        return watcher
    }
}
