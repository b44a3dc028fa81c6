import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The clock a registry's timing runs on (``SceneRegistry/Configuration/clock``),
/// reduced to what the store needs: a reading, and a sleep until a reading.
/// A reading is the time since the clock was wrapped (the registry
/// opened), so the store keeps no instants of a clock type it cannot name.
///
/// Every policy that waits reads it: save coalescing, the back-off after a
/// failed save, the file lock's timeout and a binding's retry. A test
/// passes a manual clock and advances it instead of sleeping.
package struct SceneClock: Sendable {
    private let reading: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// Blocks the calling thread until a reading (see ``blockingSleep(for:)``).
    private let blockingSleeper: @Sendable (Duration) -> Void

    package init(_ clock: any Clock<Duration>) {
        self = Self.wrapping(clock)
    }

    private static func wrapping<C: Clock<Duration>>(_ clock: C) -> Self {
        let start = clock.now
        let sleeper: @Sendable (Duration) async throws -> Void = { reading in
            try await clock.sleep(until: start.advanced(by: reading), tolerance: nil)
        }
        let reading: @Sendable () -> Duration = { start.duration(to: clock.now) }
        let blockingSleeper: @Sendable (Duration) -> Void
        if clock is ContinuousClock || clock is SuspendingClock {
            // Waking early (a signal) is harmless: every caller reads the clock again.
            blockingSleeper = { deadline in
                let remaining = (deadline - reading()).nanoseconds
                guard remaining > 0 else { return }
                var pause = timespec(tv_sec: remaining / 1_000_000_000, tv_nsec: remaining % 1_000_000_000)
                _ = nanosleep(&pause, nil)
            }
        } else {
            // A clock a test advances: a task sleeps on it, the thread waits for the task.
            blockingSleeper = { deadline in
                let woken = DispatchSemaphore(value: 0)
                Task {
                    try? await sleeper(deadline)
                    woken.signal()
                }
                woken.wait()
            }
        }
        return Self(reading: reading, sleeper: sleeper, blockingSleeper: blockingSleeper)
    }

    private init(
        reading: @escaping @Sendable () -> Duration, sleeper: @escaping @Sendable (Duration) async throws -> Void,
        blockingSleeper: @escaping @Sendable (Duration) -> Void
    ) {
        self.reading = reading
        self.sleeper = sleeper
        self.blockingSleeper = blockingSleeper
    }

    /// The continuous clock, for what runs outside a registry.
    package static var continuous: Self { Self(ContinuousClock()) }

    /// The time since the clock was wrapped.
    package var now: Duration { reading() }

    /// Returns once the clock reads `deadline` or later (at once if it
    /// does already); throws when the task is cancelled.
    ///
    /// "At once if it does already" is checked here, not left to the
    /// clock: a manual clock (swift-clocks' `TestClock`) suspends a sleep
    /// whose deadline equals its reading until it is advanced again. A
    /// timer whose task started after a test advanced the clock to the
    /// timer's deadline exactly (a save due at the end of its window, on a
    /// loaded machine) then never fired.
    package func sleep(until deadline: Duration) async throws {
        guard now < deadline else { return try Task.checkCancellation() }
        try await sleeper(deadline)
    }

    /// Blocks the calling thread until `duration` has passed on the clock:
    /// for the waits of blocking work (the scene lock's), on a thread the
    /// library owns, never the cooperative pool's. On a real clock a
    /// `nanosleep`; on another (a test's manual clock) the thread waits
    /// for a task sleeping on it, so that advancing the clock wakes it.
    package func blockingSleep(for duration: Duration) {
        guard duration > .zero else { return }
        blockingSleeper(now + duration)
    }
}
