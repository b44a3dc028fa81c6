import Foundation
import SceneNavigation
import SceneStore
import SceneStoreTesting
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Two models bound to one path in two registries (two processes, as far
/// as the store can tell) pushing at the same moment both keep their
/// element: a bound model's edit is committed under the scene lock against
/// the path on disk, never saved over it from a stale copy in memory.
// Hang guard: its slowest test took 3 s in its layer here, 164 s in the whole suite (every test at once on 2 cores); 5 minutes.
@Suite(.timeLimit(.minutes(5)))
struct BindingConcurrentPushTests {
    private let key = "mixed.path"

    /// Each round, another process holds the scene lock while both models
    /// push; with a zero lock timeout both commits fail at once (each has
    /// then tried without having seen the other's push), and both are
    /// retried when the manual clock passes the binding's one-second retry
    /// (again, if the two retries met at the lock).
    @Test @MainActor func pushesMadeWhileAnotherProcessHoldsTheLockAreBothKept() async throws {
        let clock = ManualClock()
        var configuration = SceneRegistry.Configuration(savePolicy: .writeThrough, lockTimeout: .zero)
        configuration.clock = clock
        let fixture = try await SceneStoreFixture(configuration: configuration)
        let codec = PathCodec<ScenePath>.scenePath(types: testTypes)
        let left = RecordingModel()
        let right = RecordingModel()
        let leftBound = await PathBinding(store: try fixture.registry.store(for: "main"), key: key, codec: codec)
            .bind(\.path, on: left)
        let rightBound = await PathBinding(store: try fixture.otherRegistry().store(for: "main"), key: key, codec: codec)
            .bind(\.path, on: right)

        var expected: [Int] = []
        for round in 0..<3 {
            let lock = try HeldLock(scene: "main", root: fixture.root)
            left.path.append(round * 10 + 1)
            right.path.append(round * 10 + 2)
            #expect(await Self.failure(of: leftBound), "round \(round): the left push never met the lock")
            #expect(await Self.failure(of: rightBound), "round \(round): the right push never met the lock")
            lock.release()
            expected += [round * 10 + 1, round * 10 + 2]
            let all = Set(expected)
            let both: @Sendable (ScenePath) -> Bool = { path in
                path.count == all.count && Set(path.compactMap { $0 as? Int }) == all
            }
            // A second at a time, and only once nothing is in flight: each
            // model shows both pushes, or a retry waits on the clock while
            // nobody holds the lock. The two retries meet at the lock too (a
            // zero timeout fails the one that comes second), and each
            // failure retries a second later. No real time passes: the
            // bound on advances only guards against a hang.
            var advances = 0
            while !(both(left.path) && both(right.path)), advances < 1_000 {
                let settled = await Self.until {
                    if both(left.path) && both(right.path) { return true }
                    return await Self.sleepsPending(on: clock) && !HeldLock.isHeld(.scene("main"), root: fixture.root)
                }
                guard settled, !(both(left.path) && both(right.path)) else { break }
                await clock.advance(by: .seconds(1))
                advances += 1
            }
            #expect(both(left.path), "round \(round): left shows \(left.path)")
            #expect(both(right.path), "round \(round): right shows \(right.path)")
        }
        #expect(leftBound.lastError == nil && rightBound.lastError == nil)
        leftBound.stop()
        rightBound.stop()

        let relaunched = try await fixture.relaunch()
        let data = try await #require(try relaunched.store(for: "main").value(forKey: key, as: Data.self))
        let restored = try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        #expect(restored.count == expected.count)
        #expect(Set(restored.compactMap { $0 as? Int }) == Set(expected))
        await fixture.tearDown()
    }
}

extension BindingConcurrentPushTests {
    /// A push that meets a lock held longer than the lock timeout is not
    /// refused, only delayed: the binding keeps it pending and tries again
    /// a second later on the store's clock, instead of dropping it.
    @Test @MainActor func aPushThatTimesOutOnTheLockIsSavedLater() async throws {
        let clock = ManualClock()
        var configuration = SceneRegistry.Configuration(savePolicy: .writeThrough, lockTimeout: .zero)
        configuration.clock = clock
        let fixture = try await SceneStoreFixture(configuration: configuration)
        let store = try await fixture.registry.store(for: "main")
        let model = RecordingModel()
        let bound = PathBinding(store: store, key: key, codec: .scenePath(types: testTypes)).bind(\.path, on: model)

        let lock = try HeldLock(scene: "main", root: fixture.root)
        model.path.append(7)
        #expect(await Self.failure(of: bound), "the push should have met the held lock")
        lock.release()
        await clock.advance(by: .milliseconds(999))
        #expect(try await Self.stored(key, root: fixture.root) == nil, "retried before its second was up")
        await clock.advance(by: .milliseconds(1))

        let key = self.key
        let saved = await store.values(forKey: key, default: Data()).first(within: .seconds(120)) { data in
            (try? ScenePath.restore(from: data, types: testTypes, policy: .strict).path) == scenePath([7])
        }
        #expect(saved != nil, "the push was dropped after the lock timeout")
        bound.stop()
        await fixture.tearDown()
    }

    /// What a fresh registry reads on disk for `key` of scene "main".
    static func stored(_ key: String, root: URL) async throws -> Data? {
        let reader = try await SceneRegistry(root: root, configuration: .init(watcher: .none, readOnly: true))
        defer { reader.abandon() }
        return try await reader.store(for: "main").value(forKey: key, as: Data.self)
    }

    /// Waits until the binding reports a failed commit, at most two minutes.
    @MainActor static func failure(of bound: BoundPath) async -> Bool {
        await until { bound.lastError != nil }
    }

    /// Waits until `condition` holds, at most two minutes (a hang guard).
    /// Polled every 10 ms: what it reads (a binding's `lastError`, the
    /// manual clock's sleepers, the scene lock) sends no event.
    @MainActor static func until(_ condition: @MainActor () async -> Bool) async -> Bool {
        for _ in 0..<12_000 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Whether something (a binding's retry) sleeps on `clock`.
    static func sleepsPending(on clock: ManualClock) async -> Bool {
        (try? await clock.checkSuspension()) == nil
    }
}
