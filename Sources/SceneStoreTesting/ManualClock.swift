public import Clocks

/// A clock that moves only when a test advances it: pass it as
/// `SceneRegistry.Configuration.clock` and save coalescing, the back-off
/// after a failed save, the lock timeout and a binding's retry wait for
/// `advance(by:)` instead of for time to pass.
///
/// ```swift
/// let clock = ManualClock()
/// var configuration = SceneRegistry.Configuration(savePolicy: .coalesced(.seconds(10)))
/// configuration.clock = clock
/// // ... set a value twice: the second save waits for the window
/// await clock.advance(by: .seconds(10))
/// ```
///
/// It is swift-clocks' `TestClock`: everything that library documents
/// (`advance(to:)`, `run()`, `checkSuspension()`) works here too.
public typealias ManualClock = TestClock<Duration>
