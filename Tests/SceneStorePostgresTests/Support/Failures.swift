#if Postgres
import Foundation
import SceneStoreTesting
import Synchronization

/// Errors collected from threads a test started.
final class Failures: Sendable {
    private let errors = Mutex<[any Error]>([])

    func record(_ error: any Error) {
        errors.withLock { $0.append(error) }
    }

    var all: [any Error] { errors.withLock { $0 } }
}

/// Runs `body(0)`, ..., `body(count - 1)` at once, each on a thread of its
/// own, and returns when all have: `DispatchQueue.concurrentPerform` would
/// block the global queue's threads, the few that Swift's concurrency runs
/// every test on, for as long as the bodies wait on the server.
func onThreadsOfTheirOwn(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            body(index)
            group.leave()
        }
    }
    _ = try? await blockingWork { group.wait() }
}
#endif
