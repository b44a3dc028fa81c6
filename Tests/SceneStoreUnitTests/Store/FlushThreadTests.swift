import Foundation
@testable import SceneStore
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
        // A task executor with one thread of its own.
        let caller = BlockingCallExecutor(name: "FlushThreadTests")
        let thread = await withTaskExecutorPreference(caller) {
            "/proc/" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "self") + "/io"
        }
        // Under the default policy a set right after a save waits for the
        // coalescing window, so the flush finds the store idle: each round
        // after the first.
        for round in 0..<20 {
            try store.set(round, forKey: "k")
            let before = try Self.writeCalls(thread)
            try await withTaskExecutorPreference(caller) { try await store.flush() }
            #expect(try Self.writeCalls(thread) == before, "round \(round): the flush wrote on the caller's thread")
        }
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.value(forKey: "k", as: Int.self) == 19)
        await fixture.tearDown()
    }

    /// The write system calls a thread made so far (`/proc/<pid>/task/<tid>/io`).
    private static func writeCalls(_ io: String) throws -> Int {
        let text = try String(contentsOfFile: io, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("syscw:") })
        return try #require(Int(line.dropFirst("syscw:".count).trimmingCharacters(in: .whitespaces)))
    }
}
