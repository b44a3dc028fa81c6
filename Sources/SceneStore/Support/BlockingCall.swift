import Foundation

/// Runs asynchronous work for a synchronous caller and waits for it: the
/// synchronous convenience ``SceneRegistry/blockingStore(for:)`` over the
/// asynchronous storage seam.
///
/// The work starts on the calling thread and, on a storage that never
/// suspends (files, memory), ends there too: nothing waits. Whatever
/// follows a suspension (a database's answer, a pause waiting for a
/// lock) runs on a thread of its own (``BlockingCallExecutor``), never on
/// Swift's cooperative pool, so callers blocked on that pool's few threads
/// cannot starve the work they wait for.
enum BlockingCall {
    static func wait<Value: Sendable>(
        _ work: @escaping @Sendable () async throws(SceneStoreError) -> Value
    ) throws(SceneStoreError) -> Value {
        let outcome = Locked<Result<Value, SceneStoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.immediate(executorPreference: BlockingCallExecutor.shared) {
            let result: Result<Value, SceneStoreError>
            do throws(SceneStoreError) {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // Set before the semaphore was signalled.
        return try outcome.withLock { $0 ?? .failure(.storageUnavailable(location: "", reason: "no result")) }.get()
    }
}

/// One thread that runs, in order, the jobs of tasks started by
/// ``BlockingCall`` once they resumed after a suspension.
package final class BlockingCallExecutor: TaskExecutor, @unchecked Sendable {
    package static let shared = BlockingCallExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []  // guarded by condition

    /// A thread of its own, for as long as the process runs.
    package init(name: String = "SceneStore.BlockingCall") {
        let thread = Thread { self.serve() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
