import ArgumentParser
import CSQLite
import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// Cold restore: a fresh process (this executable, `bench restore-child`)
    /// opens what each alternative wrote, reads one key and exits. Its wall
    /// time, spawn to reaped, less that of a child that only starts,
    /// measured in the same run and interleaved with the others.
    struct ColdRestoreFigures: Encodable {
        var spawns: Int
        /// p50 of the child that only starts, milliseconds.
        var baselineMs: Double
        /// Alternative -> scene size (keys) -> p50 child time less the baseline, milliseconds.
        var netMs: [String: [String: Double]]
        /// Alternative -> scene size -> net over SceneStore's.
        var overSceneStore: [String: [String: Double]]
        /// The scene limit SceneStore's child (and its writer) are configured with.
        var sceneStoreMaxSceneBytes: Int

        /// The app's default configuration, the scene limit raised so that
        /// 100 000 keys always fit.
        static var sceneStoreConfiguration: SceneRegistry.Configuration {
            var configuration = SceneRegistry.Configuration()
            configuration.limits.maxSceneBytes = 64 << 20
            return configuration
        }

        static let userDefaultsMaxKeys = 10_000

        static func measure(sizes: [Int], spawns: Int, in scratch: URL) async throws -> ColdRestoreFigures {
            var writerConfiguration = sceneStoreConfiguration
            (writerConfiguration.savePolicy, writerConfiguration.watcher) = (.onFlush, .none)
            var baseline: [Int] = []
            var samples: [String: [String: [Int]]] = [:]
            for keys in sizes {
                // Foundation's UserDefaults (on Linux) is quadratic in the keys
                // set and removed: 10 000 take about 5 s each, 100 000 minutes.
                var alternatives = commitAlternatives(sceneStore: SceneStoreAlternative(configuration: writerConfiguration))
                    .filter { keys <= userDefaultsMaxKeys || !($0 is UserDefaultsAlternative) }
                var children: [(name: String, arguments: [String])] = [("start", RestoreChild.arguments(.start))]
                for index in alternatives.indices {
                    let place = scratch.appendingPathComponent("restore-k\(keys)-\(index)")
                    try await alternatives[index].prepare(keys: keys, in: place)
                    // The floor writes its file on a commit only.
                    if alternatives[index] is FloorAlternative { try await alternatives[index].commit(0) }
                    // Closed (SQLite checkpointed), as after the app quit;
                    // UserDefaults' finish deletes its suite: after the children.
                    if !(alternatives[index] is UserDefaultsAlternative) { try await alternatives[index].finish() }
                    let name = alternatives[index].name
                    guard let kind = RestoreChild.Kind(rawValue: name) else { throw failure("no restore child for \(name)") }
                    children.append((name, RestoreChild.arguments(
                        kind, directory: place.path, suite: AlternativeFiles.userDefaultsSuite(pid: getpid(), keys: keys))))
                    if kind == .sceneStore {
                        let other = RestoreChild.Kind.sceneStoreWithoutWatcher
                        children.append((other.rawValue, RestoreChild.arguments(other, directory: place.path)))
                    }
                }
                for _ in 0..<spawns {
                    for child in children.shuffled() {
                        let (elapsed, output) = try timedRun(labExecutable, child.arguments)
                        guard child.name == "start" || output.hasPrefix(RestoreChild.expectedPrefix(child.name)) else {
                            throw failure("the \(child.name) restore child printed \(output.debugDescription)")
                        }
                        if child.name == "start" {
                            baseline.append(elapsed)
                        } else {
                            samples[child.name, default: [:]][String(keys), default: []].append(elapsed)
                        }
                    }
                }
                for index in alternatives.indices where alternatives[index] is UserDefaultsAlternative {
                    try await alternatives[index].finish()
                }
            }
            let baselineMs = Summary(nanoseconds: baseline).p50Ms
            let net = samples.mapValues { bySize in bySize.mapValues { Summary(nanoseconds: $0).p50Ms - baselineMs } }
            let sceneStore = net[SceneStoreAlternative().name] ?? [:]
            return ColdRestoreFigures(
                spawns: spawns, baselineMs: baselineMs, netMs: net,
                overSceneStore: net.mapValues { bySize in
                    bySize.reduce(into: [:]) { result, entry in
                        if let base = sceneStore[entry.key], base > 0 { result[entry.key] = entry.value / base }
                    }
                },
                sceneStoreMaxSceneBytes: sceneStoreConfiguration.limits.maxSceneBytes)
        }

        func printTable(sizes: [Int], order: [String]) {
            emit("")
            emit(String(format: "cold restore in a fresh process (open, read one key, exit), p50 of %d in ms less a child that only starts (p50 %.2f ms)",
                        spawns, baselineMs))
            emit("".padding(toLength: 24, withPad: " ", startingAt: 0) + sizes.map { "\($0) keys".leftPadded(to: 20) }.joined())
            for name in order + [RestoreChild.Kind.sceneStoreWithoutWatcher.rawValue] {
                guard let row = netMs[name] else { continue }
                emit(name.padding(toLength: 24, withPad: " ", startingAt: 0) + sizes.map { size -> String in
                    let key = String(size)
                    let ratio = overSceneStore[name]?[key].map { String(format: " (%.2fx)", $0) } ?? ""
                    return ((row[key].map { String(format: "%.2f", $0) } ?? "-") + ratio).leftPadded(to: 20)
                }.joined())
            }
            emit("  SceneStore: the app's default configuration (inotify watcher) with maxSceneBytes raised to \(sceneStoreMaxSceneBytes >> 20) MiB "
                 + "(default \(SceneRegistry.Limits().maxSceneBytes >> 20) MiB); floor: the file's bytes read, nothing decoded")
            if sizes.contains(where: { $0 > Self.userDefaultsMaxKeys }) {
                emit("  UserDefaults: not above \(Self.userDefaultsMaxKeys) keys; Foundation's set and removePersistentDomain are quadratic on Linux (10 000 keys: about 5 s each)")
            }
        }
    }

    /// The child of the cold-restore benchmark: opens one alternative's
    /// scene, reads `key0`, prints it, exits.
    struct RestoreChild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore-child",
            abstract: "The fresh process of the cold-restore benchmark.",
            shouldDisplay: false)

        /// What to open; the raw values are the alternatives' names.
        enum Kind: String, ExpressibleByArgument {
            /// Nothing: the baseline, a process that only starts.
            case start
            case floor = "floor (syscalls)"
            case sceneStore = "scenestore"
            /// The same with `watcher: .none`: no inotify descriptor, whose
            /// teardown at exit the kernel makes wait (about 15-20 ms).
            case sceneStoreWithoutWatcher = "scenestore, no watcher"
            case sqlite = "SQLite WAL FULL"
            case pathStore = "PathStore pattern"
            case userDefaults = "UserDefaults"
        }

        @Option(help: "What to open.") var kind: Kind
        @Option(help: "The directory the alternative wrote.") var directory = ""
        @Option(help: "The UserDefaults suite.") var suite = ""

        static func arguments(_ kind: Kind, directory: String = "", suite: String = "") -> [String] {
            ["bench", "restore-child", "--kind", kind.rawValue, "--directory", directory, "--suite", suite]
        }

        /// How the line a child prints starts.
        static func expectedPrefix(_ name: String) -> String {
            name == Kind.floor.rawValue ? "bytes " : "value number 0"
        }

        func run() async throws {
            let place = URL(fileURLWithPath: directory, isDirectory: true)
            switch kind {
            case .start:
                return
            case .floor:
                emit("bytes \(try Data(contentsOf: place.appendingPathComponent(AlternativeFiles.floor)).count)")
            case .sceneStore, .sceneStoreWithoutWatcher:
                var configuration = ColdRestoreFigures.sceneStoreConfiguration
                if kind == .sceneStoreWithoutWatcher { configuration.watcher = .none }
                let registry = try await SceneRegistry(root: place, configuration: configuration)
                await emit(try registry.store(for: AlternativeFiles.sceneStoreScene).value(forKey: "key0", as: String.self) ?? "")
                try await registry.close()
            case .sqlite:
                emit(try readSQLite(place.appendingPathComponent(AlternativeFiles.sqlite).path))
            case .pathStore:
                let state = try JSONDecoder().decode(
                    [String: String].self, from: Data(contentsOf: place.appendingPathComponent(AlternativeFiles.pathStore)))
                emit(state["key0"] ?? "")
            case .userDefaults:
                emit(UserDefaults(suiteName: suite)?.string(forKey: "key0") ?? "")
            }
        }

        private func readSQLite(_ path: String) throws -> String {
            var database: OpaquePointer?
            var select: OpaquePointer?
            defer {
                sqlite3_finalize(select)
                sqlite3_close(database)
            }
            guard sqlite3_open(path, &database) == SQLITE_OK,
                  sqlite3_prepare_v2(database, "SELECT value FROM kv WHERE key = ?1;", -1, &select, nil) == SQLITE_OK else {
                throw failure("sqlite: cannot open \(path)")
            }
            sqlite3_bind_text(select, 1, "key0", -1, scenes_sqlite_transient())
            guard sqlite3_step(select) == SQLITE_ROW, let text = sqlite3_column_text(select, 0) else { return "" }
            return String(cString: text)
        }
    }
}
