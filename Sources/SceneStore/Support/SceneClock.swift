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

    package init(_ clock: any Clock<Duration>) {
        self = Self.wrapping(clock)
    }

    private static func wrapping<C: Clock<Duration>>(_ clock: C) -> Self {
        let start = clock.now
        return Self(
            reading: { start.duration(to: clock.now) },
            sleeper: { reading in try await clock.sleep(until: start.advanced(by: reading), tolerance: nil) }
        )
    }

    private init(reading: @escaping @Sendable () -> Duration, sleeper: @escaping @Sendable (Duration) async throws -> Void) {
        self.reading = reading
        self.sleeper = sleeper
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

    /// Returns once `duration` has passed on the clock.
    package func sleep(for duration: Duration) async throws {
        try await sleeper(now + duration)
    }
}
