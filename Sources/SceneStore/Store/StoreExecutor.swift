import Foundation

/// Where a store's I/O runs: one piece of work at a time, in order of
/// submission, on the store's own dispatch queue, or, for a quick piece of
/// work that finds nothing else running, right where it was asked for
/// (``runIfIdle(_:)``: the watcher's thread applying a small change, which
/// spares waking the queue, about a tenth of the time a change takes to
/// reach another process).
///
/// Each piece of work holds ``running`` while it runs, so nothing else of
/// the store's I/O runs meanwhile, wherever it was started.
final class StoreExecutor: Sendable {
    private let queue: DispatchQueue
    private let running = NSLock()

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` after everything submitted before it.
    func async(_ work: @escaping @Sendable () -> Void) {
        queue.async {
            self.running.lock()
            defer { self.running.unlock() }
            work()
        }
    }

    /// Runs `work` after everything submitted before it, and waits for it.
    func sync<Result>(_ work: () throws -> Result) rethrows -> Result {
        try queue.sync {
            running.lock()
            defer { running.unlock() }
            return try work()
        }
    }

    /// Runs `work` on the calling thread if no other work of the store runs
    /// now, and returns `true`; else returns `false` at once.
    func runIfIdle(_ work: () -> Void) -> Bool {
        guard running.try() else { return false }
        defer { running.unlock() }
        work()
        return true
    }
}
