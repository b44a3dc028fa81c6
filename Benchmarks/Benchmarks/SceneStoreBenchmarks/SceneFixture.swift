import Foundation
import SceneStore

/// The key each benchmark changes or reads; one of the scene's keys. Made
/// once: a key made at each use (a computed `static var`, as SceneKey's
/// documentation declares them) costs allocations of its own, which
/// `read.computedKey.100keys` measures.
let counterKey = SceneKey("counter", default: 0)

extension SceneKey where Value == Int {
    /// `counterKey`, made anew at each use.
    static var counter: Self { .init("counter", default: 0) }
}

/// The counter's value in a prepared scene: none that an iteration writes
/// (a stream yields only a change); `update` counts up from it, through
/// values of eight digits each.
let initialValue = 9_999_999

/// The value a benchmark's iteration writes: a new one each time, always
/// of seven digits, so that every commit writes a record of one length.
func value(forIteration iteration: Int) -> Int {
    1_000_000 + iteration % 1_000_000
}

/// The scene every benchmark uses.
let benchmarkScene: SceneID = "main"

/// One benchmark's root: a fresh temporary directory holding one scene of
/// `keys` keys (`counter` and string values), and the registries the
/// benchmark opens on it. Made by the benchmark's setup and removed by its
/// teardown, so no benchmark sees another's files.
final class SceneFixture: @unchecked Sendable {
    // @unchecked: set by setup, read by the iterations, cleared by
    // teardown; package-benchmark runs the three one after another.
    let keys: Int
    private(set) var root: URL?
    private var registries: [SceneRegistry] = []

    init(keys: Int) {
        self.keys = keys
    }

    /// Creates the root and writes the scene's `keys` keys, durably.
    func prepare() async throws {
        requireSystemCallCounter()
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("scenestore-benchmark-\(UUID().uuidString)", isDirectory: true)
        self.root = root
        let registry = try await SceneRegistry(root: root, configuration: .init(savePolicy: .onFlush, watcher: .none))
        let store = try await registry.store(for: benchmarkScene)
        try store.set(initialValue, for: counterKey)
        for index in 1..<max(keys, 1) {
            try store.set("value \(index) of the benchmark's scene", for: SceneKey("key-\(index)", default: ""))
        }
        try await registry.close()
    }

    /// A registry on the root, closed by ``remove()``.
    func registry(
        savePolicy: SceneRegistry.SavePolicy = .onFlush, watcher: WatcherPreference = .none,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> SceneRegistry {
        guard let root else { fatalError("the fixture's root is made by prepare()") }
        let registry = try await SceneRegistry(
            root: root, configuration: .init(savePolicy: savePolicy, watcher: watcher, clock: clock))
        registries.append(registry)
        return registry
    }

    /// Closes the registries and removes the root.
    func remove() async throws {
        for registry in registries { try await registry.close() }
        registries = []
        if let root { try FileManager.default.removeItem(at: root) }
        root = nil
    }
}

/// What a benchmark's setup opens and its iterations use (a store, a
/// stream's iterator).
final class Opened<Value>: @unchecked Sendable {
    // @unchecked: as SceneFixture, set and read one step after another.
    private var opened: Value?

    var value: Value {
        get {
            guard let opened else { fatalError("opened by the benchmark's setup") }
            return opened
        }
        set { opened = newValue }
    }

    func clear() { opened = nil }
}
