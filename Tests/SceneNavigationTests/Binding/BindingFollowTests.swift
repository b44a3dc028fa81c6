import Foundation
import SceneNavigation
import SceneStore
import SceneStoreTesting
import Testing

/// A bound model follows what the store holds: through discards, removals
/// and bursts, always to the latest value, never writing it back.
// Hang guard: its slowest test took 2 s here (2 cores); 3 minutes, as TSan and the load step run it several times slower.
@Suite(.timeLimit(.minutes(3)))
struct BindingFollowTests {
    private let key = "mixed.path"

    private func binding(_ store: SceneStore) -> PathBinding<ScenePath> {
        PathBinding(store: store, key: key, codec: .scenePath(types: testTypes))
    }

    @Test @MainActor func theModelFollowsThroughARemoteDiscardAndAfterIt() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let mine = try await fixture.registry.store(for: "main")
        try binding(mine).write(scenePath([5]))
        try await mine.flush()
        let other = try await fixture.otherRegistry()
        let theirs = try await other.store(for: "main")
        let model = RecordingModel()
        let bound = binding(mine).bind(\.path, on: model)
        #expect(model.path == scenePath([5]))

        try binding(theirs).write(scenePath([9]))
        try await theirs.flush()
        #expect(await model.wait { $0 == scenePath([9]) })
        try await other.discard("main")
        #expect(await model.wait { $0.isEmpty }, "after the discard the model shows \(model.path)")
        try binding(theirs).write(scenePath([7]))
        try await theirs.flush()
        #expect(await model.wait { $0 == scenePath([7]) }, "after the discard the model shows \(model.path)")
        bound.stop()
        await fixture.tearDown()
    }

    @Test @MainActor func aKeyRemovedElsewhereResetsTheModelToTheEmptyPath() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let mine = try await fixture.registry.store(for: "main")
        try binding(mine).write(scenePath([5]))
        try await mine.flush()
        let theirs = try await fixture.otherRegistry().store(for: "main")
        let model = RecordingModel()
        let bound = binding(mine).bind(\.path, on: model)
        #expect(model.path == scenePath([5]))

        try binding(theirs).write(scenePath([5, 6]))
        try await theirs.flush()
        #expect(await model.wait { $0 == scenePath([5, 6]) })
        theirs.removeValue(forKey: key)
        try await theirs.flush()
        #expect(await model.wait { $0.isEmpty }, "after the removal the model shows \(model.path)")
        bound.stop()
        await fixture.tearDown()
    }

    @Test @MainActor func aBurstOfRemoteChangesEndsAtTheLatestAndWritesNothingBack() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let mine = try await fixture.registry.store(for: "main")
        let theirs = try await fixture.otherRegistry().store(for: "main")
        let writes = LocalWrites(of: mine, key: key)
        let model = RecordingModel()
        let bound = binding(mine).bind(\.path, on: model)

        // The burst: the binding applies what arrives, in whatever batches
        // its turns see (the main actor is never blocked here: a test that
        // blocks it starves every main-actor test running beside it).
        let last = 20
        for number in 1...last {
            try theirs.set(encodedPath([number]), forKey: key)
            try await theirs.flush()
        }
        #expect(await model.wait { $0 == scenePath([last]) })
        #expect(model.sets.count <= last, "the model went through \(model.sets.count) values")
        try await mine.flush()
        #expect(writes.values.isEmpty, "applying wrote back \(writes.values.count) time(s)")
        #expect(try ScenePath.restore(from: #require(theirs.value(forKey: key, as: Data.self)), types: testTypes, policy: .strict).path == scenePath([last]))
        bound.stop()
        await fixture.tearDown()
    }

    @Test func externalChangesYieldTheLatestPathOnly() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let mine = try await fixture.registry.store(for: "main")
        let theirs = try await fixture.otherRegistry().store(for: "main")
        let arrivals = binding(mine).externalChanges()
        for number in 1...10 {
            try binding(theirs).write(scenePath([number]))
            try await theirs.flush()
        }
        let final = try encodedPath([10])
        #expect(await mine.values(forKey: key, default: Data()).first { $0 == final } != nil)
        // A consumer that comes late sees the latest path first, not [1].
        let first = await arrivals.first(within: .seconds(30))
        #expect(first?.path == scenePath([10]))
        await fixture.tearDown()
    }

    @Test func theBindingLogsThroughTheStoresLogger() async throws {
        let log = LogCapture()
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, logger: log.logger()))
        let store = try await fixture.registry.store(for: "main")
        try store.set(Data("not a path".utf8), forKey: key)
        #expect(binding(store).restore() == nil)
        #expect(log.messages.contains { $0.contains("no longer decodes") }, "\(log.messages)")
        await fixture.tearDown()
    }
}
