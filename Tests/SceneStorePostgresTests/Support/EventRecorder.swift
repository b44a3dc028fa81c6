#if Postgres
import Foundation
import SceneStore
import SceneStoreTesting

/// Collects a watch's events and lets a test wait for one. Locks with
/// `Locked`, which ThreadSanitizer sees through (see .ci/tsan).
final class EventRecorder: Sendable {
    private let events = Locked<[SceneStorageEvent]>([])
    private let arrived = DispatchSemaphore(value: 0)

    var handler: @Sendable (SceneStorageEvent) -> Void {
        { event in
            self.events.withLock { $0.append(event) }
            self.arrived.signal()
        }
    }

    var all: [SceneStorageEvent] { events.withLock { $0 } }

    /// Waits until an event matching `match` arrived (already or later),
    /// at most `timeout`; consumes the events up to it.
    /// Off the tests' shared threads (the wait blocks one of its own).
    func wait(
        for timeout: Duration = .seconds(20), _ match: @escaping @Sendable (SceneStorageEvent) -> Bool
    ) async -> Bool {
        (try? await blockingWork { self.waitBlocking(for: timeout, match) }) ?? false
    }

    /// The first `count` events, once they arrived (at most `timeout`:
    /// fewer then), without consuming them.
    func prefix(_ count: Int, within timeout: Duration = .seconds(20)) async -> [SceneStorageEvent] {
        let deadline = ContinuousClock.now + timeout
        return (try? await blockingWork {
            while self.all.count < count, ContinuousClock.now < deadline {
                _ = self.arrived.wait(timeout: .now() + .milliseconds(100))
            }
            return Array(self.all.prefix(count))
        }) ?? []
    }

    private func waitBlocking(
        for timeout: Duration, _ match: (SceneStorageEvent) -> Bool
    ) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found = events.withLock { events -> Bool in
                guard let index = events.firstIndex(where: match) else { return false }
                events.removeSubrange(...index)
                return true
            }
            if found { return true }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            _ = arrived.wait(timeout: .now() + .milliseconds(min(100, max(1, Int(left.components.seconds * 1000)))))
        }
    }
}
#endif
