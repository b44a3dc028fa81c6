import Foundation

/// How a registry learns that scene files changed on disk.
public enum WatcherPreference: Sendable, Equatable {
    /// inotify where it works (Linux), falling back to polling every 250 ms
    /// when it cannot serve (watch or instance limit, descriptor above 1023,
    /// the root re-created where no watch can be added), with a warning.
    case automatic
    /// inotify only; registering interest fails when it cannot serve.
    /// On platforms without inotify, polling every 250 ms.
    case inotify
    /// Every open scene read again every `interval` (its first bytes and
    /// where its log ends, when nobody changed it): for network file
    /// systems, where inotify does not see writes made on other machines.
    case polling(interval: Duration)
    /// No watcher at all, and no thread for one: changes by other processes
    /// are seen only when a save merges them. For one-shot tools that read
    /// or write once and exit.
    case none
}

/// The interval open scenes are re-read at when inotify cannot serve.
package let defaultFallbackPollingInterval: Duration = .milliseconds(250)
