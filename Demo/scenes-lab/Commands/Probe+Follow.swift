import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Probe {
    /// Keeps several scenes open and prints each one's state whenever it
    /// changes, until stdin closes: what a test compares with the disk.
    struct Follow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print {scene, generation, values} as JSON whenever an open scene changes, until stdin closes.")

        @OptionGroup var rootOptions: RootOptions
        @OptionGroup var watcherOption: WatcherOption
        @Option(name: .customLong("scene"), help: "A scene to keep open (repeat for more).")
        var scenes: [String] = []

        func validate() throws {
            guard !scenes.isEmpty else { throw ValidationError("give at least one --scene") }
            for scene in scenes { _ = try SceneOption.parse(["--scene", scene]).sceneID() }
        }

        func run() async throws {
            let registry = try watcherOption.openRegistry(rootOptions)
            let stores = try scenes.map { try registry.blockingStore(for: $0) }
            // Subscribe before printing the first state: nothing falls between.
            let streams = stores.map { store in
                defer { Self.report(store) }
                return store.updates()
            }
            emit("ready \(getpid()) \(registry.watcherKind?.description ?? "none")")
            await withTaskGroup(of: Void.self) { group in
                for (store, first) in zip(stores, streams) {
                    group.addTask {
                        for await _ in first { Self.report(store) }
                    }
                }
                group.addTask { await standardInputClosed() }
                await group.next()
                group.cancelAll()
            }
            try await registry.close()
        }

        private static func report(_ store: SceneStore) {
            struct SceneDump: Encodable {
                let scene: String
                let generation: UInt64
                let values: [String: SceneValue]
            }
            guard let line = try? jsonLine(SceneDump(
                scene: store.id.rawValue, generation: store.generation, values: store.snapshot)) else { return }
            emit(line)
        }
    }
}
