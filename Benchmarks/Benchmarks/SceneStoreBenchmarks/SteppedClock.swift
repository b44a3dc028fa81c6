import Synchronization

/// The continuous clock, moved on by the benchmark: under `.coalesced`, a
/// commit's store sees the save window pass before the commit without the
/// benchmark waiting it out. Reading it makes no system call and allocates
/// nothing, like the continuous clock.
struct SteppedClock: Clock {
    typealias Instant = ContinuousClock.Instant

    private let skipped = Skipped()

    var now: Instant { ContinuousClock.now.advanced(by: skipped.total) }
    var minimumResolution: Duration { ContinuousClock().minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await ContinuousClock().sleep(until: deadline.advanced(by: .zero - skipped.total), tolerance: tolerance)
    }

    /// Moves the clock on by `duration`, at once.
    func skip(_ duration: Duration) {
        skipped.add(duration)
    }

    /// The time skipped so far.
    private final class Skipped: Sendable {
        private let skipped = Mutex(Duration.zero)

        var total: Duration { skipped.withLock { $0 } }

        func add(_ duration: Duration) {
            skipped.withLock { $0 += duration }
        }
    }
}
