import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// The store's timing policies on a manual clock: a save waits for the
/// clock, never for time to pass, so each test checks both sides of a
/// deadline exactly, however slow the machine.
@Suite struct ClockPolicyTests {
    static func fixture(
        _ policy: SceneRegistry.SavePolicy, lockTimeout: Duration = .seconds(10), clock: ManualClock
    ) async throws -> SceneStoreFixture {
        var configuration = SceneRegistry.Configuration(savePolicy: policy, watcher: .none, lockTimeout: lockTimeout)
        configuration.clock = clock
        return try await SceneStoreFixture(configuration: configuration)
    }

    /// A registry that watches the root: what the store saves arrives on
    /// its stream, so a test waits for the save as an event.
    static func observer(of fixture: SceneStoreFixture) async throws -> SceneStore {
        try await fixture.otherRegistry(configuration: SceneRegistry.Configuration(savePolicy: .onFlush)).store(for: "main")
    }

    @Test func anEditWithinTheWindowIsSavedWhenTheClockReachesItsEnd() async throws {
        let clock = ManualClock()
        let fixture = try await Self.fixture(.coalesced(.seconds(10)), clock: clock)
        let store = try await fixture.registry.store(for: "main")
        let saved = try await Self.observer(of: fixture).changes()

        try store.set(1, forKey: "a")  // a quiet store: saved at once
        #expect(await saved.first { $0.key == "a" && $0.newValue == .int(1) } != nil)
        // Another process sees the record before the save has ended (its
        // fdatasync, then the clock read that starts the window). A flush
        // waits for that save, so the window starts at 0 s, not wherever
        // the clock is when a slow save ends.
        try await store.flush()
        try store.set(2, forKey: "a")  // within the window of that save
        await clock.advance(by: .milliseconds(9_999))
        #expect(try await fixture.stored("a") == .int(1), "saved before the window ended")
        await clock.advance(by: .milliseconds(1))
        #expect(await saved.first { $0.key == "a" && $0.newValue == .int(2) } != nil, "never saved")
        await fixture.tearDown()
    }

    @Test func aFailedSaveIsRetriedOneSecondLaterOnTheClock() async throws {
        let clock = ManualClock()
        // A zero lock timeout: a save that meets the lock fails at once.
        let fixture = try await Self.fixture(.writeThrough, lockTimeout: .zero, clock: clock)
        let store = try await fixture.registry.store(for: "main")
        let updates = store.updates()
        let saved = try await Self.observer(of: fixture).changes()

        let held = try SceneDirectory(root: fixture.root).lock(.scene("main"))
        try store.set(1, forKey: "a")
        let failure = await updates.first { if case .saveFailed = $0 { true } else { false } }
        guard case .saveFailed(.lockTimeout)? = failure else {
            Issue.record("expected a lock timeout, got \(String(describing: failure))")
            return
        }
        held.unlock()
        await clock.advance(by: .milliseconds(999))
        #expect(try await fixture.stored("a") == nil, "retried before the back-off ended")
        await clock.advance(by: .milliseconds(1))
        #expect(await saved.first { $0.key == "a" && $0.newValue == .int(1) } != nil, "never retried")
        await fixture.tearDown()
    }

    @Test func aLockIsWaitedForUntilTheTimeoutHasPassedOnTheClock() async throws {
        let clock = ManualClock()
        let fixture = try await Self.fixture(.onFlush, lockTimeout: .seconds(10), clock: clock)
        let store = try await fixture.registry.store(for: "main")
        let held = try SceneDirectory(root: fixture.root).lock(.scene("main"))
        try store.set(1, forKey: "a")
        let outcome = Locked<(any Error)??>(nil)
        let flushing = Task {
            do {
                try await store.flush()
                outcome.withLock { $0 = .some(nil) }
            } catch {
                outcome.withLock { $0 = .some(error) }
            }
        }

        // The wait sleeps on the clock once its first try failed (polled:
        // the clock sends no event when something starts sleeping on it).
        var polls = 0
        while (try? await clock.checkSuspension()) != nil, polls < 120_000 {
            try await Task.sleep(for: .milliseconds(1))
            polls += 1
        }
        #expect(polls < 120_000, "the lock wait never slept on the clock")
        // It began at 0 s: it cannot end before 10 s, and ends at 10 s.
        await clock.advance(by: .seconds(9))
        #expect(outcome.withLock { $0 == nil }, "gave up before the timeout")
        await clock.advance(by: .seconds(1))
        _ = await flushing.value
        let error = outcome.withLock { $0 } ?? nil
        guard case SceneStoreError.lockTimeout(_, _, let waited)? = error else {
            Issue.record("expected a lock timeout, got \(String(describing: error))")
            return
        }
        #expect(waited == .seconds(10))
        held.unlock()
        try await store.flush()
        #expect(try await fixture.stored("a") == .int(1))
        await fixture.tearDown()
    }
}
