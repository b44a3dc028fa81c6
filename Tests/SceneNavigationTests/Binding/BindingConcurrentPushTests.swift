import Foundation
import SceneNavigation
import SceneStore
import SceneStoreTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two models bound to one path in two registries (two processes, as far
/// as the store can tell) pushing at the same moment both keep their
/// element: a bound model's edit is committed under the scene lock against
/// the path on disk, never saved over it from a stale copy in memory.
@Suite(.timeLimit(.minutes(5)))
struct BindingConcurrentPushTests {
    private let key = "mixed.path"

    @Test @MainActor func pushesMadeWhileAnotherProcessHoldsTheLockAreBothKept() async throws {
        let fixture = try SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let codec = PathCodec<ScenePath>.scenePath(types: testTypes)
        let left = RecordingModel()
        let right = RecordingModel()
        let leftBound = PathBinding(store: try fixture.registry.store(for: "main"), key: key, codec: codec)
            .bind(\.path, on: left)
        let rightBound = PathBinding(store: try fixture.otherRegistry().store(for: "main"), key: key, codec: codec)
            .bind(\.path, on: right)

        var expected: [Int] = []
        for round in 0..<3 {
            // Another process holds the scene lock while both models push,
            // so neither can have seen the other's push before its own.
            let lock = try SceneLockHolder(scene: "main", root: fixture.root)
            left.path.append(round * 10 + 1)
            right.path.append(round * 10 + 2)
            for _ in 0..<20 { await Task.yield() }
            lock.release()
            expected += [round * 10 + 1, round * 10 + 2]
            let all = Set(expected)
            let both: @Sendable (ScenePath) -> Bool = { path in
                path.count == all.count && Set(path.compactMap { $0 as? Int }) == all
            }
            #expect(await left.wait(within: .seconds(60), until: both), "round \(round): left shows \(left.path)")
            #expect(await right.wait(within: .seconds(60), until: both), "round \(round): right shows \(right.path)")
        }
        #expect(leftBound.lastError == nil && rightBound.lastError == nil)
        leftBound.stop()
        rightBound.stop()

        let relaunched = try await fixture.relaunch()
        let data = try #require(try relaunched.store(for: "main").value(forKey: key, as: Data.self))
        let restored = try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        #expect(restored.count == expected.count)
        #expect(Set(restored.compactMap { $0 as? Int }) == Set(expected))
        await fixture.tearDown()
    }
}

extension BindingConcurrentPushTests {
    /// A push that meets a lock held longer than the lock timeout is not
    /// refused, only delayed: the binding keeps it pending and saves it
    /// once the lock is free, instead of dropping it.
    @Test @MainActor func aPushThatTimesOutOnTheLockIsSavedLater() async throws {
        let fixture = try SceneStoreFixture(configuration: .init(savePolicy: .writeThrough, lockTimeout: .milliseconds(100)))
        let store = try fixture.registry.store(for: "main")
        let model = RecordingModel()
        let bound = PathBinding(store: store, key: key, codec: .scenePath(types: testTypes)).bind(\.path, on: model)

        let lock = try SceneLockHolder(scene: "main", root: fixture.root)
        model.path.append(7)
        // Polled: the binding reports its failures through `lastError` only.
        let deadline = ContinuousClock.now + .seconds(30)
        while bound.lastError == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(bound.lastError != nil, "the push should have met the held lock")
        lock.release()

        let key = self.key
        let saved = await store.values(forKey: key, default: Data()).first(within: .seconds(30)) { data in
            (try? ScenePath.restore(from: data, types: testTypes, policy: .strict).path) == scenePath([7])
        }
        #expect(saved != nil, "the push was dropped after the lock timeout")
        bound.stop()
        await fixture.tearDown()
    }
}

/// Holds a scene's lock the way another process would: an exclusive
/// `flock` on `<root>/.<scene>~lock` through a descriptor of its own.
private final class SceneLockHolder {
    private var fd: Int32

    init(scene: String, root: URL) throws {
        fd = open(root.appendingPathComponent(".\(scene)~lock").path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0, flock(fd, LOCK_EX) == 0 else { throw SceneLockHolderFailure(errno: errno) }
    }

    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}

private struct SceneLockHolderFailure: Error {
    let errno: Int32
}
