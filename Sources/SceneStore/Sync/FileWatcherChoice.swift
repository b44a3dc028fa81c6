import Foundation
import Logging

/// How a registry learns that scene files changed on disk.
public enum WatcherPreference: Sendable, Equatable {
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

/// The watcher for `preference`, or `nil` for ``WatcherPreference/none``.
///
/// - Parameters:
///   - preference: the caller's choice.
///   - logger: where a fallback to polling is reported.
package func makeFileWatcher(_ preference: WatcherPreference, logger: Logger) -> (any FileWatcher)? {
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
/// ``SceneStoreError/watcherUnavailable(reason:)``, or hands an interest back
/// with ``FileWatchEvent/unavailable(reason:)``, then polls.
///
/// The switch is one-way and logged once at `.warning`: after it, every new
/// interest is served by a ``PollingWatcher`` and ``kind`` says so; interests
/// that `primary` already serves keep running there until `primary` hands
/// them back, then they move to polling and their handler gets `.rescan`. Other errors from
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
    package var kind: WatcherKind {
        state.withLock { $0.fallback?.kind } ?? primary.kind
    }

    package func watch(
        directory: URL,
        handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) throws -> FileWatchToken {
        let id = state.withLock { state in
            defer { state.nextTokenID += 1 }
            return state.nextTokenID
        }
        let route: (watcher: any FileWatcher, token: FileWatchToken)
        if let fallback = state.withLock({ $0.fallback }) {
            route = (fallback, try fallback.watch(directory: directory, handler: handler))
        } else {
            do {
                let inner = try primary.watch(directory: directory) { [weak self] event in
                    guard case .unavailable(let reason) = event, let self else { return handler(event) }
                    self.move(id, directory: directory, handler: handler, reason: reason)
                }
                route = (primary, inner)
            } catch SceneStoreError.watcherUnavailable(let reason) {
                let fallback = degrade(reason: reason)
                route = (fallback, try fallback.watch(directory: directory, handler: handler))
            }
        }
        state.withLock { $0.routes[id] = route }
        return FileWatchToken(id: id)
    }

    /// Moves an interest that `primary` handed back to polling; the
    /// handler re-reads everything, as events may have been missed.
    private func move(
        _ id: UInt64, directory: URL, handler: @escaping @Sendable (FileWatchEvent) -> Void, reason: String
    ) {
        let fallback = degrade(reason: reason)
        do {
            // The directory may be missing for now (moved away, deleted).
            let token = try fallback.watch(directory: directory, mayBeMissing: true, handler: handler)
            let cancelled = state.withLock { state -> Bool in
                guard state.routes[id] != nil else { return true }
                state.routes[id] = (fallback, token)
                return false
            }
            if cancelled { fallback.cancel(token) }
            handler(.rescan)
        } catch {
            logger.error("cannot poll either; changes by other processes are merged only when saving", metadata: [
                "directory": "\(directory.path)", "error": "\(error)",
            ])
            handler(.unavailable(reason: "\(reason); polling failed: \(error)"))
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
