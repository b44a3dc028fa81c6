import Benchmark

// Every benchmark measures counts that repeat from run to run, whatever
// else the machine does: allocations (mallocCountTotal, the malloc
// interposer's) and system calls (systemCalls, the process's own counter,
// all threads). Wall-clock time is not measured here: this 2-core machine
// cannot hold it steady (scenes-lab's benchmarks measure time against a
// floor). Thresholds: Thresholds/<toolchain>/, checked by .ci/run.
let benchmarks: @Sendable () -> Void = {
    commitBenchmarks()
    memoryBenchmarks()
    openBenchmarks()
    syncBenchmarks()
}
