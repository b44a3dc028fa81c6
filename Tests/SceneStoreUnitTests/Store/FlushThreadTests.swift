import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// Blocking I/O runs on threads the library owns: a flush's writes and
/// syncs never run on the thread of the task that awaits it (a `@MainActor`
/// model's main thread, or one of the few threads of Swift's cooperative
/// pool), whatever the save policy. The file root runs over a file system
/// that notes the thread of every `pwrite`, `fsync` and `fdatasync`
/// (``FaultyFileSystem`` with no fault); the caller is a task whose
/// executor has one thread of its own, or the main actor.
@Suite struct FlushThreadTests {
    enum Caller: String, CaseIterable, Sendable {
        case taskExecutor, mainActor
    }

    @Test(arguments: [SceneRegistry.SavePolicy.onFlush, .default], Caller.allCases)
    func aFlushNeitherWritesNorSyncsOnTheCallersThread(_ policy: SceneRegistry.SavePolicy, _ caller: Caller) async throws {
        let fixture = try await SceneStoreFixture()
        try SceneDirectory(root: fixture.root).prepare()
        let calls = FileFaults()
        let registry = await SceneRegistry(storage: SceneDirectory(root: fixture.root, system: FaultyFileSystem(calls)),
            configuration: .testing(savePolicy: policy))
        let store = try await registry.store(for: "main")
        let executor = BlockingCallExecutor(name: "FlushThreadTests")
        var callers: Set<pthread_t> = []
        // Under the default policy a set right after a save waits for the
        // coalescing window, so the flush finds the store idle: each round
        // after the first.
        for round in 0..<20 {
            try store.set(round, forKey: "k")
            switch caller {
            case .taskExecutor:
                callers.insert(try await withTaskExecutorPreference(executor) { try await Self.flush(store) })
            case .mainActor:
                callers.insert(try await Self.flushOnTheMainActor(store))
            }
        }
        for call in [FileFaults.Call.pwrite, .fsync, .fdatasync] {
            #expect(calls.threads(of: call).isDisjoint(with: callers), "a \(call) ran on the caller's thread")
        }
        #expect(calls.count(of: .fsync) + calls.count(of: .fdatasync) >= 20, "fewer syncs than saves")
        try await registry.close()
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.value(forKey: "k", as: Int.self) == 19)
        await fixture.tearDown()
    }

    /// Flushes `store` from the preferred task executor; the thread it was
    /// called on. (The task runs on that executor once it has suspended:
    /// the yield.)
    private static func flush(_ store: SceneStore) async throws -> pthread_t {
        await Task.yield()
        let thread = pthread_self()
        try await store.flush()
        return thread
    }

    @MainActor private static func flushOnTheMainActor(_ store: SceneStore) async throws -> pthread_t {
        let thread = pthread_self()
        try await store.flush()
        return thread
    }
}
