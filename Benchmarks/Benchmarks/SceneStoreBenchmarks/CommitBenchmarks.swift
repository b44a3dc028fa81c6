import Benchmark
import SceneStore

/// The scene sizes of the commit and open benchmarks.
let sceneSizes = [1, 100, 1_000, 10_000]

/// The operations one sample of a commit, update or sync benchmark makes,
/// one after another. A single commit's allocations vary by one now and
/// then (Dispatch's per-thread caches, the store's periodic tidying), and
/// that moved a single commit's p90 by one between runs; the p90 of five
/// commits holds within a few, and one allocation more per commit is five.
let operationsPerSample = 5

/// A durable commit of one change (`set` + `flush`) to a scene of 1 to
/// 10,000 keys, under each save policy, the watcher off (its thread's work
/// is not what is measured); five commits a sample.
///
/// * `.onFlush`: the flush makes the save.
/// * `.coalesced(.milliseconds(30))`, the default: before each commit the
///   registry's clock is moved on by 40 ms (``SteppedClock``), so the `set`
///   finds a quiet store and saves at once, and the flush waits for that
///   save: an app's isolated edit. Back to back, every `set` would fall in
///   the window of the save before and arm a timer instead, once per
///   window, whose firing would land in some other commit's counts; and
///   waiting the window out for real would make a sample last 200 ms, in
///   which Dispatch's once-a-second timer thread (four calls) lands in
///   every fifth sample.
func commitBenchmarks() {
    let policies: [(name: String, policy: SceneRegistry.SavePolicy, pause: Duration)] = [
        ("onFlush", .onFlush, .zero),
        ("coalesced", .coalesced(.milliseconds(30)), .milliseconds(40)),
    ]
    for (name, policy, pause) in policies {
        for keys in sceneSizes {
            let fixture = SceneFixture(keys: keys)
            let clock = SteppedClock()
            let opened = Opened<SceneStore>()
            Benchmark(
                "commit.\(name).\(keys)keys",
                configuration: .counts(allocations: 2, systemCalls: 2)
            ) { benchmark in
                let store = opened.value
                let first = benchmark.currentIteration * operationsPerSample
                try await benchmark.measure {
                    for commit in first..<first + operationsPerSample {
                        clock.skip(pause)
                        try store.set(value(forIteration: commit), for: counterKey)
                        try await store.flush()
                    }
                }
            } setup: {
                try await fixture.prepare()
                opened.value = try await fixture.registry(savePolicy: policy, clock: clock).store(for: benchmarkScene)
            } teardown: {
                opened.clear()
                try await fixture.remove()
            }
        }
    }
}
