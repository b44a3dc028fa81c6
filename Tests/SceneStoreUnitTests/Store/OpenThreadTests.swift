import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// Blocking I/O runs on threads the library owns, past a flush too:
/// opening a registry (its root made, its lock file opened and the root
/// marked open), listing its scenes, the window calls and closing make
/// every system call of the file root on a thread of the library's, never
/// on the caller's. The file root runs over ``FaultyFileSystem`` with no
/// fault, which notes the thread of every call; the caller is a task whose
/// executor has one thread of its own. (Not the main actor: on Linux its
/// queue is drained by dispatch's worker threads, the ones the library's
/// queues run on too, so a shared thread would prove nothing.)
@Suite struct OpenThreadTests {
    @Test func openingListingWindowCallsAndClosingMakeNoSystemCallOnTheCallersThread() async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("fresh/scenes")
        let calls = FileFaults()
        let executor = BlockingCallExecutor(name: "OpenThreadTests")
        let callers = try await withTaskExecutorPreference(executor) { try await Self.run(root, calls) }
        #expect(callers.count == 1, "the caller's task ran on more than its executor's one thread")
        for call in FileFaults.Call.allCases {
            #expect(calls.threads(of: call).isDisjoint(with: callers), "a call of \(call) ran on the caller's thread")
        }
        for call in [FileFaults.Call.makeDirectory, .lock, .entries, .pwrite, .fdatasync, .unlink] {
            #expect(calls.count(of: call) > 0, "no \(call) was made: the test saw none of its threads")
        }
        await fixture.tearDown()
    }

    /// Opens a registry at `root`, lists it, opens a window, lists the
    /// windows, closes the window for good and the registry; the threads
    /// it ran on between those calls.
    private static func run(_ root: URL, _ calls: FileFaults) async throws -> Set<pthread_t> {
        // (The task runs on its executor once it has suspended.)
        await Task.yield()
        var threads: Set<pthread_t> = [pthread_self()]
        let registry = try await SceneRegistry(
            root: root, configuration: .testing(savePolicy: .onFlush), system: FaultyFileSystem(calls))
        threads.insert(pthread_self())
        _ = try await registry.sceneIDs()
        threads.insert(pthread_self())
        let window = try await registry.newScene(title: "window")
        threads.insert(pthread_self())
        _ = try await registry.sessions()
        threads.insert(pthread_self())
        try await registry.closeForGood(window.id)
        threads.insert(pthread_self())
        try await registry.close()
        threads.insert(pthread_self())
        return threads
    }
}
