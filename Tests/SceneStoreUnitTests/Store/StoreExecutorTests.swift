import Foundation
@testable import SceneStore
import Synchronization
import Testing

/// A store's executor: one piece of work at a time across suspensions, in
/// the order asked, with the load first.
struct StoreExecutorTests {
    /// Work from `run` (the caller's task) and `submit` (a task of its
    /// own), each suspending in the middle, never overlaps, and each piece
    /// runs exactly once.
    @Test func workNeverOverlapsAcrossSuspensions() async {
        for _ in 0..<50 {
            let executor = StoreExecutor(label: "test")
            let probe = OverlapProbe()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    if index.isMultiple(of: 2) {
                        group.addTask { await executor.run { await probe.work() } }
                    } else {
                        group.addTask {
                            await withCheckedContinuation { continuation in
                                executor.submit {
                                    await probe.work()
                                    continuation.resume()
                                }
                            }
                        }
                    }
                }
            }
            #expect(probe.overlaps.load(ordering: .relaxed) == 0)
            #expect(probe.ran.load(ordering: .relaxed) == 20)
        }
    }

    /// Submitted work runs in the order it was submitted.
    @Test func submittedWorkRunsInOrder() async {
        let executor = StoreExecutor(label: "test", claimed: true)
        let order = Locked<[Int]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<100 {
                executor.submit {
                    await Task.yield()
                    order.withLock { $0.append(index) }
                    if index == 99 { done.resume() }
                }
            }
            // Everything above queued behind the claim; letting go starts it.
            Task { await executor.runClaimed {} }
        }
        #expect(order.withLock { $0 } == Array(0..<100))
    }

    /// A store's executor is born claimed: work asked before the load
    /// ended waits for it.
    @Test func workWaitsForTheLoad() async {
        let executor = StoreExecutor(label: "test", claimed: true)
        let loaded = Atomic(false)
        let sawLoaded = Task { await executor.run { loaded.load(ordering: .relaxed) } }
        // The waiter cannot get in, however long it tries.
        for _ in 0..<100 { await Task.yield() }
        await executor.runClaimed {
            loaded.store(true, ordering: .relaxed)
        }
        #expect(await sawLoaded.value)
    }

    /// The watcher's fast path runs right on the calling thread when the
    /// executor is idle, and declines at once when it is not.
    @Test func runIfIdleRunsOnTheCallersThreadOrDeclines() async {
        let executor = StoreExecutor(label: "test")
        let result = await onAThreadOfItsOwn { () -> (Bool, Bool) in
            let caller = pthread_self()
            let sameThread = Atomic(false)
            let ran = executor.runIfIdle { sameThread.store(pthread_equal(pthread_self(), caller) != 0, ordering: .relaxed) }
            return (ran, sameThread.load(ordering: .relaxed))
        }
        #expect(result == (true, true))

        let busy = StoreExecutor(label: "test", claimed: true)
        #expect(!busy.runIfIdle {})
        await busy.runClaimed {}
        #expect(busy.runIfIdle {})
    }
}

/// Counts pieces of work that ran, and those that found another inside.
private final class OverlapProbe: Sendable {
    let inside = Atomic(0)
    let overlaps = Atomic(0)
    let ran = Atomic(0)

    func work() async {
        if inside.add(1, ordering: .relaxed).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
        await Task.yield()
        inside.subtract(1, ordering: .relaxed)
        ran.add(1, ordering: .relaxed)
    }
}

/// Runs `work` on a thread of its own (the fast path must start on the
/// thread that asks, as the watcher's thread does).
private func onAThreadOfItsOwn<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
