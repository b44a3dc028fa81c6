import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// Blocking I/O runs on threads the library owns: a flush's writes and
/// syncs never run on the thread of the task that awaits it (a `@MainActor`
/// model's main thread, or one of the few threads of Swift's cooperative
/// pool), whatever the save policy. The caller here is a task whose
/// executor has one thread of its own; the kernel counts each thread's
/// write system calls (`syscw` in `/proc/<pid>/task/<tid>/io`).
@Suite struct FlushThreadTests {
    @Test(arguments: [SceneRegistry.SavePolicy.onFlush, .default])
    func aFlushWritesNothingOnTheCallersThread(_ policy: SceneRegistry.SavePolicy) async throws {
        let fixture = try SceneStoreFixture(configuration: .testing(savePolicy: policy))
        let store = try await fixture.registry.store(for: "main")
        let caller = OneThreadExecutor()
        defer { caller.stop() }
        // Under the default policy a set right after a save waits for the
        // coalescing window, so the flush finds the store idle: each round
        // after the first.
        for round in 0..<20 {
            try store.set(round, forKey: "k")
            let before = try caller.writeCalls()
            try await withTaskExecutorPreference(caller) { try await store.flush() }
            #expect(try caller.writeCalls() == before, "round \(round): the flush wrote on the caller's thread")
        }
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.value(forKey: "k", as: Int.self) == 19)
        await fixture.tearDown()
    }
}

/// A task executor with one thread of its own, whose write system calls
/// the kernel counts apart from every other thread's.
private final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private var ioPath: String?

    init() {
        Thread { [self] in run() }.start()
        condition.lock()
        while ioPath == nil { condition.wait() }
        condition.unlock()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// The thread's write system calls so far.
    func writeCalls() throws -> Int {
        let path = condition.withLock { ioPath } ?? ""
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("syscw:") })
        return try #require(Int(line.dropFirst("syscw:".count).trimmingCharacters(in: .whitespaces)))
    }

    private func run() {
        // "/proc/thread-self" links to "<pid>/task/<tid>".
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "self"
        condition.lock()
        ioPath = "/proc/" + me + "/io"
        condition.broadcast()
        while true {
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty { break }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
        condition.unlock()
    }
}
