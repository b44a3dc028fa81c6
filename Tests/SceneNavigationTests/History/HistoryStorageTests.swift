import Foundation
import Observation
@testable import SceneNavigation
import SceneStore
import SceneStoreTesting
import Testing

/// A history in a scene key: restored from older paths, kept aside when
/// this process cannot read an entry, merged with another window's edits.
// Hang guard: its slowest test took 2 s in its layer here, 74 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct HistoryStorageTests {
    private let key = "mixed.path"
    private let codec = PathCodec.history(.scenePath(types: testTypes))

    @Test func aPathStoredWithoutHistoryRestoresWithNoEntries() throws {
        let old = try scenePath([1, "two"]).encoded(types: testTypes)
        let decoded = try codec.decode(old)
        #expect(decoded.path.path == scenePath([1, "two"]))
        #expect(decoded.path.forwardSteps.count == 0)
        #expect(decoded.path.recentlyViewed.isEmpty)
        #expect(decoded.dropped.isEmpty)
    }

    @Test func aPathReaderReadsTheHistorysPath() throws {
        var history = NavigationHistory<ScenePath>()
        history.push(1)
        history.push("two")
        history.push(3)
        history.back()
        let data = try codec.encode(history)
        #expect(data.utf8.contains(#""forward":"#))
        #expect(try ScenePath.restore(from: data, types: testTypes, policy: .strict).path == scenePath([1, "two"]))
    }

    @Test func anEntryOfAnUnregisteredTypeIsDroppedAndListed() throws {
        var history = NavigationHistory<ScenePath>()
        history.push(1)
        history.push("gone")
        history.push(2)
        history.back(2)
        let data = try codec.encode(history)
        let reader = PathCodec.history(.scenePath(types: intOnlyTypes))
        let decoded = try reader.decode(data)
        #expect(decoded.path.path == scenePath([1]))
        #expect(decoded.path.forwardSteps.map { $0 as? Int } == [2])
        #expect(decoded.dropped.contains { $0.list == .forward })
        #expect(decoded.dropped.contains { $0.list == .recentlyViewed })
        #expect(decoded.dropped.contains { $0.list == .forward && "\($0)".hasPrefix("forward: ") })
        #expect(decoded.dropped.contains { $0.list == .recentlyViewed && "\($0)".hasPrefix("recently viewed: ") })
    }

    @Test func aSaveKeepsTheEntriesThisProcessCannotReadInPlace() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let store = try await fixture.registry.store(for: "main")
        var history = NavigationHistory<ScenePath>()
        history.push(1)
        history.push(2)
        history.push("kept")
        history.back(2)  // forward: 2, then "kept"
        try store.set(codec.encode(history), forKey: key)

        let reader = PathBinding(store: store, key: key, codec: .history(.scenePath(types: intOnlyTypes)))
        let restored = try #require(reader.restore())
        var edited = restored.path
        #expect(edited.forwardSteps.map { $0 as? Int } == [2])
        edited.forward()
        try await reader.commit(edited, from: restored.path)

        let stored = try codec.decode(#require(store.value(forKey: key, as: Data.self))).path
        #expect(stored.path == scenePath([1, 2]))
        #expect(stored.forwardSteps.map { $0 as? String } == ["kept"])
        await fixture.tearDown()
    }

    @Test func forwardEntriesFollowThePathTheyContinue() async throws {
        let (fixture, binding, start) = try await Self.storedAt123(key: key, codec: codec)

        // Window A goes back (3 becomes a forward entry) while window B,
        // from the same start, pushes 4: both navigated, so, as in a
        // browser, no forward entry continues the merged path.
        var left = start
        left.back()
        try await binding.commit(left, from: start)
        var right = start
        right.push(4)
        let merged = try await binding.commit(right, from: start)
        #expect(merged.path == scenePath([1, 2, 4]))
        #expect(merged.forwardSteps.count == 0)

        // Going back and forward alone keeps the entries.
        var alone = merged
        alone.back(2)
        let afterBack = try await binding.commit(alone, from: merged)
        #expect(afterBack.forwardSteps.map { $0 as? Int } == [2, 4])
        var again = afterBack
        again.forward()
        let afterForward = try await binding.commit(again, from: afterBack)
        #expect(afterForward.path == scenePath([1, 2]))
        #expect(afterForward.forwardSteps.map { $0 as? Int } == [4])
        await fixture.tearDown()
    }

    @Test func whenThePathEndsAsStoredItsForwardEntriesStay() async throws {
        let (fixture, binding, start) = try await Self.storedAt123(key: key, codec: codec)

        // Window A goes back twice; window B, from the same start, goes
        // back once: A's pop already covers B's, so the path stays as A
        // left it, and so do A's forward entries, which continue it.
        var left = start
        left.back(2)
        try await binding.commit(left, from: start)
        var right = start
        right.back()
        let merged = try await binding.commit(right, from: start)
        #expect(merged.path == scenePath([1]))
        #expect(merged.forwardSteps.map { $0 as? Int } == [2, 3])
        await fixture.tearDown()
    }

    @Test func aPlainPathBindingKeepsTheHistoryItDoesNotKnow() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let store = try await fixture.registry.store(for: "main")
        var history = NavigationHistory<ScenePath>()
        history.push(1)
        history.push(2)
        history.back()
        try store.set(codec.encode(history), forKey: key)

        // An older window that binds the path alone pops to the root: the
        // forward entry and what was viewed stay stored.
        let plain = PathBinding(store: store, key: key, codec: .scenePath(types: testTypes))
        let restored = try #require(plain.restore()).path
        try await plain.commit(ScenePath(), from: restored)
        let stored = try codec.decode(#require(store.value(forKey: key, as: Data.self))).path
        #expect(stored.path.isEmpty)
        #expect(stored.forwardSteps.map { $0 as? Int } == [2])
        #expect(stored.recentlyViewed.map { $0 as? Int } == [1, 2])

        // A push by it is a new navigation: the forward entries go.
        try await plain.commit(scenePath([5]), from: ScenePath())
        let pushed = try codec.decode(#require(store.value(forKey: key, as: Data.self))).path
        #expect(pushed.path == scenePath([5]))
        #expect(pushed.forwardSteps.count == 0)
        await fixture.tearDown()
    }

    /// A path binding whose handle was discarded still runs.
    @Test @MainActor func aDiscardedPathBindingHandleKeepsRunning() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let store = try await fixture.registry.store(for: "main")
        let reader = ReaderModel()
        _ = PathBinding(store: store, key: key, codec: .history(.stack(of: Int.self))).bind(\.history, on: reader)
        reader.history.push(4)
        let stored = await store.values(forKey: key, default: Data()).first(within: .seconds(30)) { !$0.isEmpty }
        #expect(try stored.map { try PathCodec.history(.stack(of: Int.self)).decode($0).path.path } == [4])
        await fixture.tearDown()
    }

    @Test @MainActor func twoBoundWindowsShareOneHistory() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let codec = PathCodec.history(.stack(of: Int.self))
        let left = ReaderModel()
        let right = ReaderModel()
        let leftBound = PathBinding(store: try await fixture.registry.store(for: "main"), key: key, codec: codec)
            .bind(\.history, on: left)
        let rightBound = PathBinding(store: try await fixture.otherRegistry().store(for: "main"), key: key, codec: codec)
            .bind(\.history, on: right)

        left.history.push(1)
        left.history.push(2)
        left.history.back()
        let seen = await observedValue({ right.history }, within: .seconds(30)) { $0.forwardSteps == [2] }
        #expect(seen?.path == [1])
        right.history.forward()
        let back = await observedValue({ left.history }, within: .seconds(30)) { $0.path == [1, 2] }
        #expect(back?.forwardSteps.count == 0)
        #expect(back?.recentlyViewed == [2, 1])
        leftBound.stop()
        rightBound.stop()
        await fixture.tearDown()
    }
}

extension HistoryStorageTests {
    /// A fresh scene whose key holds the history of pushing 1, 2 and 3, and
    /// a binding on it.
    static func storedAt123(
        key: String, codec: PathCodec<NavigationHistory<ScenePath>>
    ) async throws -> (SceneStoreFixture, PathBinding<NavigationHistory<ScenePath>>, NavigationHistory<ScenePath>) {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let binding = PathBinding(store: try await fixture.registry.store(for: "main"), key: key, codec: codec)
        var start = NavigationHistory<ScenePath>()
        for page in 1...3 { start.push(page) }
        try binding.replace(with: start)
        return (fixture, binding, start)
    }
}

/// A window's model whose tab keeps a history.
@Observable @MainActor
private final class ReaderModel {
    var history = NavigationHistory<[Int]>()
}
