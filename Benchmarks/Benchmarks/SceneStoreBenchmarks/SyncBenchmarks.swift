import Benchmark
import SceneStore

/// A change from a second store on the same root arriving at the first:
/// two registries in this process on one root and one 100-key scene, the
/// first with the real inotify watcher, the second (the writer) with none,
/// as another process would be. Measured from the second store's `set`
/// until its `flush` returned and the first store's `values(for:)` stream
/// yielded the new value: the writer's commit (`commit.onFlush.100keys`'s
/// counts) plus the first store hearing, reading and applying it; five
/// changes a sample, as the commits.
func syncBenchmarks() {
    let fixture = SceneFixture(keys: 100)
    let writer = Opened<SceneStore>()
    let arrivals = Opened<AsyncStream<Int>.AsyncIterator>()
    Benchmark(
        "sync.secondStore.100keys",
        configuration: .counts(allocations: 8, systemCalls: 2)
    ) { benchmark in
        let store = writer.value
        let first = benchmark.currentIteration * operationsPerSample
        try await benchmark.measure {
            for change in first..<first + operationsPerSample {
                let value = value(forIteration: change)
                try store.set(value, for: counterKey)
                try await store.flush()
                while let arrived = await arrivals.value.next(), arrived != value {}
            }
        }
    } setup: {
        try await fixture.prepare()
        let reader = try await fixture.registry(watcher: .inotify).store(for: benchmarkScene)
        var iterator = reader.values(for: counterKey).makeAsyncIterator()
        _ = await iterator.next()  // the value now
        arrivals.value = iterator
        writer.value = try await fixture.registry().store(for: benchmarkScene)
    } teardown: {
        writer.clear()
        arrivals.clear()
        try await fixture.remove()
    }
}
