import ArgumentParser
import Foundation
import SceneStore

/// `--watcher auto|inotify|polling` and `--poll-interval-ms`: which file
/// watcher a command's registry uses (tests force polling with it).
package struct WatcherOption: ParsableArguments {
    package init() {}

    package enum Choice: String, ExpressibleByArgument, CaseIterable {
        case auto, inotify, polling
    }

    @Option(help: "How changes by other processes are noticed: auto, inotify or polling.")
    package var watcher: Choice = .auto

    @Option(name: .customLong("poll-interval-ms"), help: "With --watcher polling: milliseconds between scans.")
    package var pollIntervalMilliseconds = 250

    package func validate() throws {
        guard pollIntervalMilliseconds >= 1 else {
            throw ValidationError("--poll-interval-ms must be at least 1")
        }
    }

    package var preference: WatcherPreference {
        switch watcher {
        case .auto: .automatic
        case .inotify: .inotify
        case .polling: .polling(interval: .milliseconds(pollIntervalMilliseconds))
        }
    }

    /// The registry at `rootOptions`' root, watched as chosen.
    package func openRegistry(
        _ rootOptions: RootOptions, savePolicy: SceneRegistry.SavePolicy = .default
    ) async throws -> SceneRegistry {
        try await rootOptions.openRegistry(readOnly: false, watcher: preference, savePolicy: savePolicy)
    }

    /// The registry at `root`, watched as chosen.
    package func openRegistry(root: URL, savePolicy: SceneRegistry.SavePolicy = .default) async throws -> SceneRegistry {
        try await SceneRegistry(root: root, configuration: .init(savePolicy: savePolicy, watcher: preference))
    }
}
