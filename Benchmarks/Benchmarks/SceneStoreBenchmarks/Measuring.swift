import Benchmark
import CSyscallCount

extension BenchmarkMetric {
    /// The system calls other than futex that every thread of the process
    /// entered in the measured region (CSyscallCount): the same from run to
    /// run. package-benchmark's own `syscalls` reports nothing on Linux, so
    /// this metric has a name of its own.
    static let systemCalls = BenchmarkMetric.custom("systemCalls")
    /// The futex calls in the measured region: threads handing work to one
    /// another, more when the thread woken was asleep, so they vary with
    /// what else the machine runs (reported, not checked).
    static let futexCalls = BenchmarkMetric.custom("futexCalls")
}

extension Benchmark.Configuration {
    /// What every benchmark here is: counts only (allocations, system calls
    /// other than futex, futex calls), `iterations` samples after `warmup`,
    /// and the tolerances on the stored p90 thresholds, in counts per
    /// sample: a benchmark fails the check when its p90 is more than this
    /// above (or below) the stored value. A commit's allocations and system
    /// calls repeat exactly, at any root path (BENCHMARKS.md), so for the
    /// commits 2 a sample, and one more per commit (five a sample) fails.
    /// Futex calls have no threshold: they went from 20 to 11 a sample when
    /// the other core was busy.
    static func counts(allocations: Int, systemCalls: Int, iterations: Int = 60, warmup: Int = 2) -> Self {
        .init(
            metrics: [.mallocCountTotal, .systemCalls, .futexCalls], warmupIterations: warmup,
            maxDuration: .seconds(600), maxIterations: iterations,
            thresholds: [
                .mallocCountTotal: .init(absolute: [.p90: allocations]),
                .systemCalls: .init(absolute: [.p90: systemCalls]),
            ])
    }
}

extension Benchmark {
    /// Measures `work` alone: its allocations (between package-benchmark's
    /// start and stop) and its system calls, less the counters' own reads
    /// (two of the four fall between the readings of `systemCalls`, none
    /// between those of `futexCalls`).
    func measure<T>(_ work: () async throws -> T) async rethrows -> T {
        startMeasurement()
        let calls = scenestore_syscall_count()
        let futexes = scenestore_futex_count()
        let result = try await work()
        let callsAfter = scenestore_syscall_count()
        let futexesAfter = scenestore_futex_count()
        stopMeasurement()
        measurement(.systemCalls, Int(callsAfter - calls - 2))
        measurement(.futexCalls, Int(futexesAfter - futexes))
        return result
    }
}

/// Fails the run at once when the system-call counters are not open, so
/// that no benchmark reports a count it did not make.
func requireSystemCallCounter() {
    let status = scenestore_syscall_count_status()
    guard status != 0 else { return }
    fatalError("""
        the system-call counters are not open (errno \(status)): they need tracefs, \
        as root `mount -t tracefs tracefs /sys/kernel/tracing` (.ci/run does so)
        """)
}
