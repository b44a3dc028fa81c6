import Foundation
import MultiProcessSupport
import SceneStore
import SceneStoreTesting
import Testing

/// The window lifecycle on each storage that keeps it (the file root and
/// PostgreSQL), registries standing in for launches: what holds on one
/// holds on the other.
// Hang guard: its slowest test took 16 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8))) struct WindowLifecycleContractTests {
    static let backends = StorageBackend.allCases

    private static func launch(_ place: StoragePlace) async throws -> SceneRegistry {
        var configuration = SceneRegistry.Configuration(watcher: .none)
        configuration.lockTimeout = SceneRegistry.Configuration.testing.lockTimeout
        return try await place.registry(configuration)
    }

    @Test(arguments: backends)
    func quitThenRelaunchRestoresMostRecentFirstAndACrashRecovers(_ backend: StorageBackend) async throws {
        let place = try await StoragePlace.make(backend)
        let first = try await Self.launch(place)
        let quit = try await first.newScene(title: "quit")
        try quit.set(1, forKey: "k")
        let crashed = try await Self.launch(place)
        let lost = try await crashed.newScene(title: "crashed")
        try lost.set(2, forKey: "k")
        try await lost.flush()
        #expect(try await first.scenesToRestore().isEmpty, "both are held")

        try await first.close()
        crashed.abandon()
        let next = try await Self.launch(place)
        let restorable = try await next.scenesToRestore()
        #expect(Set(restorable.map(\.title)) == ["quit", "crashed"], "\(backend)")
        #expect(restorable.first { $0.title == "quit" }?.state == .restorable(.relaunch))
        #expect(restorable.first { $0.title == "crashed" }?.state == .restorable(.recover))
        for session in restorable {
            let store = try #require(try await next.reopen(session.id))
            #expect(store.value(forKey: "k", as: Int.self) != nil, "\(backend): \(session.title ?? "")")
        }
        #expect(try await next.sessions().allSatisfy { $0.state == .open(pid: getpid()) })
        try await next.close()
        await place.fixture.tearDown()
    }

    /// 4 launches restore 8 windows at once, 5 rounds: every window goes
    /// to exactly one of them.
    @Test(arguments: backends)
    func launchesAtOnceNeverShareAWindow(_ backend: StorageBackend) async throws {
        let place = try await StoragePlace.make(backend)
        let maker = try await Self.launch(place)
        for _ in 0..<8 { _ = try await maker.newScene() }
        try await maker.close()
        for round in 0..<5 {
            var launches: [SceneRegistry] = []
            for _ in 0..<4 { launches.append(try await Self.launch(place)) }
            let chosen = try await withThrowingTaskGroup(of: [SceneID].self) { group in
                for launch in launches {
                    group.addTask {
                        var mine: [SceneID] = []
                        for session in try await launch.scenesToRestore() {
                            if let store = try await launch.reopen(session.id) { mine.append(store.id) }
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(chosen.count == 8, "\(backend), round \(round): \(chosen)")
            #expect(Set(chosen).count == chosen.count, "\(backend), round \(round): a window twice")
            for launch in launches { try await launch.close() }
        }
        await place.fixture.tearDown()
    }

    @Test(arguments: backends)
    func aWindowClosedForGoodIsNeverOfferedAgain(_ backend: StorageBackend) async throws {
        let place = try await StoragePlace.make(backend)
        let launch = try await Self.launch(place)
        let window = try await launch.newScene()
        try window.set("draft", forKey: "text")
        try await window.flush()
        try await launch.closeForGood(window.id)
        try await launch.close()

        let next = try await Self.launch(place)
        #expect(try await next.scenesToRestore().isEmpty)
        #expect(try await next.reopen(window.id) == nil)
        #expect(try await next.store(for: window.id).value(forKey: "text", as: String.self) == nil)
        try await next.close()
        await place.fixture.tearDown()
    }

    /// Closing for good claims first: a window another launch holds is
    /// left as it is, its values and its record with it.
    @Test(arguments: backends)
    func closingForGoodAWindowAnotherLaunchHoldsChangesNothing(_ backend: StorageBackend) async throws {
        let place = try await StoragePlace.make(backend)
        let holder = try await Self.launch(place)
        let window = try await holder.newScene(title: "held")
        try window.set("draft", forKey: "text")
        try await window.flush()

        let other = try await Self.launch(place)
        await #expect(throws: SceneStoreError.windowInUse(scene: window.id.rawValue)) {
            try await other.closeForGood(window.id)
        }
        #expect(window.value(forKey: "text", as: String.self) == "draft")
        #expect(try await other.store(for: window.id).value(forKey: "text", as: String.self) == "draft")
        #expect(try await other.sessions().map(\.title) == ["held"])
        try await holder.close()
        #expect(try await other.scenesToRestore().map(\.title) == ["held"])
        try await other.close()
        await place.fixture.tearDown()
    }

    /// A launch reopens the oldest of 40 quit windows (10 on PostgreSQL,
    /// where each held window is a connection and each step is slower)
    /// while `prune` closes them all, most recent first: the launch's
    /// window and its saved value stay, and prune reports every window it
    /// closed, never that one. (Closing without the claim emptied the
    /// launch's window.)
    @Test(arguments: backends)
    func pruneLeavesAWindowALaunchReopenedAfterTheList(_ backend: StorageBackend) async throws {
        let place = try await StoragePlace.make(backend)
        let maker = try await Self.launch(place)
        let windows = backend == .postgres ? 10 : 40
        for _ in 0..<windows { _ = try await maker.newScene() }
        try await maker.close()

        let launch = try await Self.launch(place)
        let pruner = try await Self.launch(place)
        let oldest = try #require(try await launch.scenesToRestore().last)
        async let pruned = pruner.prune(olderThan: .zero)
        let reopened = try await launch.reopen(oldest.id)
        if let reopened {
            try reopened.set(7, forKey: "pushed")
            try await reopened.flush()
        }
        let closed = try await pruned
        if reopened != nil {
            #expect(!closed.contains(oldest.id), "\(backend): pruned under the launch")
            let reader = try await Self.launch(place)
            #expect(try await reader.store(for: oldest.id).value(forKey: "pushed", as: Int.self) == 7, "\(backend)")
            #expect(try await reader.sessions().map(\.id) == [oldest.id], "\(backend)")
            try await reader.close()
        } else {
            #expect(closed.contains(oldest.id), "\(backend): neither the launch nor prune had it")
        }
        #expect(closed.count + (reopened == nil ? 0 : 1) == windows, "\(backend): \(closed.count) closed")
        try await launch.close()
        try await pruner.close()
        await place.fixture.tearDown()
    }
}
