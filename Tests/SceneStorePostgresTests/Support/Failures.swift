#if Postgres
import Foundation
import SceneStoreTesting
import Synchronization

/// Errors collected from tasks a test started.
final class Failures: Sendable {
    private let errors = Mutex<[any Error]>([])

    func record(_ error: any Error) {
        errors.withLock { $0.append(error) }
    }

    var all: [any Error] { errors.withLock { $0 } }
}

/// Runs `body(0)`, ..., `body(count - 1)` at once, each in a task that
/// runs on a dispatch queue of its own (``OwnQueue``), and returns when all
/// have.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<count {
            group.addTask(executorPreference: OwnQueue()) { await body(index) }
        }
    }
}

/// A serial dispatch queue as a task executor. A test that waits on the
/// server from a task preferring one resumes there when the answer comes,
/// not on Swift's cooperative pool, whose few threads every test of the
/// process shares: a busy pool must not make an answer look late.
final class OwnQueue: TaskExecutor {
    private let queue = DispatchQueue(label: "SceneStorePostgresTests.OwnQueue")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
