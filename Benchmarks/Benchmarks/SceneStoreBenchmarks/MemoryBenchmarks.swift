import Benchmark
import SceneStore

/// What a store does without waiting for the disk, and `update`, on a
/// scene of 100 keys, the watcher off.
///
/// * `read.100keys`: `store[counterKey]`, one read from memory.
/// * `read.computedKey.100keys`: `store[.counter]`, the same read through a
///   key made at the call, as a computed `static var` makes it: what the
///   key's making costs, on top of the read.
/// * `update.100keys`: `update(counterKey) { $0 += 1 }`, a read-modify-write
///   under the scene's lock that returns once durable, under the default
///   save policy, the clock moved on by 40 ms before each (as
///   `commit.coalesced`); five updates a sample, as the commits.
func memoryBenchmarks() {
    let readFixture = SceneFixture(keys: 100)
    let readStore = Opened<SceneStore>()
    let reads: [(name: String, read: @Sendable (SceneStore) -> Int)] = [
        ("read.100keys", { $0[counterKey] }),
        ("read.computedKey.100keys", { $0[.counter] }),
    ]
    for (name, read) in reads {
        Benchmark(name, configuration: .counts(allocations: 0, systemCalls: 0, iterations: 1_000, warmup: 10)) { benchmark in
            let store = readStore.value
            let value = await benchmark.measure { read(store) }
            blackHole(value)
        } setup: {
            try await readFixture.prepare()
            readStore.value = try await readFixture.registry().store(for: benchmarkScene)
        } teardown: {
            readStore.clear()
            try await readFixture.remove()
        }
    }

    let updateFixture = SceneFixture(keys: 100)
    let updateStore = Opened<SceneStore>()
    let updateClock = SteppedClock()
    Benchmark(
        "update.100keys",
        configuration: .counts(allocations: 4, systemCalls: 2)
    ) { benchmark in
        let store = updateStore.value
        try await benchmark.measure {
            for _ in 0..<operationsPerSample {
                updateClock.skip(.milliseconds(40))
                blackHole(try await store.update(counterKey) { $0 += 1 })
            }
        }
    } setup: {
        try await updateFixture.prepare()
        updateStore.value = try await updateFixture.registry(savePolicy: .coalesced(.milliseconds(30)), clock: updateClock).store(for: benchmarkScene)
    } teardown: {
        updateStore.clear()
        try await updateFixture.remove()
    }
}
