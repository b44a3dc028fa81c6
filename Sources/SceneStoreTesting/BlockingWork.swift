import Foundation

/// Runs `work`, which blocks (starting a server, waiting for a process),
/// on a thread of its own and waits for it without holding one of the few
/// threads that Swift's concurrency runs every test's tasks on: a test
/// that blocks those threads for seconds starves the tests running beside
/// it.
public func blockingWork<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Swift.Result { try work() })
        }
    }
}
