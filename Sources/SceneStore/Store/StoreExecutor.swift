import Foundation

/// Where a store's I/O runs: one piece of work at a time, in the order it
/// asked, on the store's own dispatch queue. Work is `async` (the storage
/// seam is), so this is an asynchronous mutex over a task executor, not a
/// plain queue: a piece of work holds the executor across its suspensions
/// (a database's answer), and the next one starts only when it has ended.
///
/// The work runs on the store's queue, not on Swift's cooperative pool:
/// the file root's reads, writes and `fsync`s block for as long as the
/// disk takes, and the few threads of that pool run every task of the app
/// (a flush too: its caller may be the main thread). A storage whose calls only suspend may name the executor instead
/// (``SceneStorage/workExecutor``): a database's event loop.
///
/// * ``run(_:)`` runs work in the caller's task, on the store's queue,
///   once its turn came (the caller suspends meanwhile).
/// * ``submit(_:)`` runs work in a task of its own, for the store's
///   background work (a save, a reload, a batch of updates).
/// * ``runIfIdle(_:)`` starts work right on the calling thread if nothing
///   else runs: the watcher's thread applying a small change, which spares
///   waking another thread, about a tenth of the time a change takes to
///   reach another process. It goes on there until its first suspension
///   (on a local storage, it never suspends).
///
/// A store is created with its executor claimed (``init(label:claimed:)``):
/// its load (``runClaimed(_:)``) is the first work, and everything asked
/// meanwhile waits for it.
final class StoreExecutor: Sendable {
    /// The store's queue as a task executor, or the storage's.
    private let queue: any TaskExecutor

    /// Work waiting for its turn, first come first served.
    private enum Waiter: Sendable {
        case task(CheckedContinuation<Void, Never>)
        case job(@Sendable () async -> Void)
    }

    private struct State: Sendable {
        var busy: Bool
        var waiting: [Waiter] = []

        /// Takes the executor if it is idle; else queues `waiter`, when
        /// given, behind the work already waiting.
        mutating func claim(orQueue waiter: Waiter? = nil) -> Bool {
            guard busy else {
                busy = true
                return true
            }
            if let waiter { waiting.append(waiter) }
            return false
        }
    }

    private let state: Locked<State>

    /// - Parameter executor: where the work runs; `nil`: a serial queue
    ///   named `label`.
    init(label: String, claimed: Bool = false, executor: (any TaskExecutor)? = nil) {
        queue = executor ?? QueueExecutor(DispatchQueue(label: label))
        state = Locked(State(busy: claimed))
    }

    /// Runs `work` in the caller's task, on the store's queue, once
    /// everything asked before it has ended.
    func run<Result, Failure: Error>(_ work: () async throws(Failure) -> Result) async throws(Failure) -> Result {
        try await onQueue(acquiring: true, work)
    }

    /// Runs `work` in the caller's task, on the store's queue, holding the
    /// executor claimed at ``init(label:claimed:)``, then lets go of it.
    func runClaimed<Result, Failure: Error>(_ work: () async throws(Failure) -> Result) async throws(Failure) -> Result {
        try await onQueue(acquiring: false, work)
    }

    private func onQueue<Result, Failure: Error>(
        acquiring: Bool, _ work: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await withTaskExecutorPreference(queue) { () async throws(Failure) -> Result in
            if acquiring { await acquire() }
            defer { handOff() }
            return try await work()
        }
    }

    /// Runs `work` (in a task of its own) once everything asked before it
    /// has ended.
    func submit(_ work: @escaping @Sendable () async -> Void) {
        if state.withLock({ $0.claim(orQueue: .job(work)) }) { Task(executorPreference: queue) { await self.finish(work) } }
    }

    /// Starts `work` on the calling thread if nothing else of the store
    /// runs, and returns `true`; else returns `false` at once.
    func runIfIdle(_ work: @escaping @Sendable () async -> Void) -> Bool {
        guard claimIfIdle() else { return false }
        Task.immediate(executorPreference: queue) { await self.finish(work) }
        return true
    }

    private func claimIfIdle() -> Bool {
        state.withLock { $0.claim() }
    }

    private func finish(_ work: @Sendable () async -> Void) async {
        await work()
        handOff()
    }

    private func acquire() async {
        guard !claimIfIdle() else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if state.withLock({ $0.claim(orQueue: .task(continuation)) }) { continuation.resume() }
        }
    }

    /// Gives the executor to the first waiting work, or marks it idle.
    private func handOff() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        switch next {
        case nil: break
        case .task(let continuation): continuation.resume()
        case .job(let work): Task(executorPreference: queue) { await self.finish(work) }
        }
    }
}

/// A serial dispatch queue as a task executor: tasks that prefer it run
/// their nonisolated code there (a store's I/O, a root's window calls).
final class QueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
