import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// `close()` waits for the unlinks of previous versions it queued off the
/// save path (``SceneDirectory/discardPrevious(_:)``) without holding the
/// caller's thread: a task on the same one-thread executor runs while it
/// waits, and here it is that task that lets the cleanup go on.
// Hang guard: each round ends in milliseconds here; 1 minute.
@Suite(.timeLimit(.minutes(1))) struct CloseThreadTests {
    @Test func closeWaitsForTheCleanupHoldingNoThreadOfTheCaller() async throws {
        for round in 0..<10 {
            let fixture = try await SceneStoreFixture()
            // No store and no window: close() reaches the wait without
            // suspending before it, so only a wait that suspends frees the
            // thread.
            let registry = try await fixture.otherRegistry()
            // The cleanup queue held until `opened`.
            let opened = DispatchSemaphore(value: 0)
            SceneDirectory.cleanupQueue.async { opened.wait() }
            let executor = BlockingCallExecutor(name: "CloseThreadTests")
            let closing = Task(executorPreference: executor) { try await registry.close() }
            // Runs only if close() left the executor's one thread free.
            let ran = Locked(false)
            Task(executorPreference: executor) {
                ran.withLock { $0 = true }
                opened.signal()
            }
            // Bounded, never met before the fix: its close() held the thread.
            let ranInTime = await Self.until(.seconds(10)) { ran.withLock { $0 } }
            if !ranInTime { opened.signal() }
            #expect(ranInTime, "round \(round): close() held the caller's thread while the cleanup waited")
            try await closing.value
            await fixture.tearDown()
        }
    }

    private static func until(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition()
    }
}
