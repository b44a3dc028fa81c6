import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Probe {
    /// Keeps several scenes open and prints each one's state whenever it
    /// changes, until stdin closes: what a test compares with the disk.
    struct Follow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print {scene, generation, values, watcher} as JSON whenever an open scene changes (and for each, on a line \"dump\"), until stdin closes.")

        @OptionGroup var rootOptions: RootOptions
        @OptionGroup var watcherOption: WatcherOption
        @Option(name: .customLong("scene"), help: "A scene to keep open (repeat for more).")
        var scenes: [String] = []

        func validate() throws {
            guard !scenes.isEmpty else { throw ValidationError("give at least one --scene") }
            for scene in scenes { _ = try SceneOption.parse(["--scene", scene]).sceneID() }
        }

        func run() async throws {
            let registry = try await watcherOption.openRegistry(rootOptions)
            let stores = try scenes.map { try registry.blockingStore(for: $0) }
            // Subscribe before printing the first state: nothing falls between.
            let streams = stores.map { store in
                defer { Self.report(store, watcher: registry.watcherKind) }
                return store.updates()
            }
            emit("ready \(getpid()) \(registry.watcherKind?.description ?? "none")")
            await withTaskGroup(of: Void.self) { group in
                for (store, first) in zip(stores, streams) {
                    group.addTask {
                        for await _ in first { Self.report(store, watcher: registry.watcherKind) }
                    }
                }
                // "dump" prints every scene as it is now.
                group.addTask {
                    await standardInputLines { line in
                        guard line == "dump" else { return }
                        for store in stores { Self.report(store, watcher: registry.watcherKind) }
                    }
                }
                await group.next()
                group.cancelAll()
            }
            try await registry.close()
        }

        /// One line: the scene's state, and the watcher the registry says
        /// it runs then.
        private static func report(_ store: SceneStore, watcher: WatcherKind?) {
            struct SceneDump: Encodable {
                let scene: String
                let generation: UInt64
                let values: [String: SceneValue]
                let watcher: String
            }
            guard let line = try? jsonLine(SceneDump(
                scene: store.id.rawValue, generation: store.generation, values: store.snapshot,
                watcher: watcher?.description ?? "none")) else { return }
            emit(line)
        }
    }
}
