import Benchmark
import SceneStore

/// Opening a scene of 1 to 10,000 keys: a fresh registry's
/// `store(for:)` on a prepared root, which reads and decodes the scene
/// file, then `flush()`, which returns once the store's queue has done what
/// the reading left it (a second look at the file's head and end), so that
/// the counts hold all of it and nothing runs on past the measured region.
/// The decoder itself (`SceneFile`) is the library's `package` API, out of
/// this package's reach. The registry is made and closed outside the
/// measured region, the watcher off.
func openBenchmarks() {
    for keys in sceneSizes {
        let fixture = SceneFixture(keys: keys)
        Benchmark(
            "open.\(keys)keys",
            configuration: .counts(allocations: 3, systemCalls: 2, iterations: keys >= 10_000 ? 50 : 200, warmup: 3)
        ) { benchmark in
            let registry = try await fixture.registry()
            let store = try await benchmark.measure {
                let store = try await registry.store(for: benchmarkScene)
                try await store.flush()
                return store
            }
            blackHole(store)
            try await registry.close()
        } setup: {
            try await fixture.prepare()
        } teardown: {
            try await fixture.remove()
        }
    }
}
