import Foundation
import Observation
import SceneNavigation
import SceneStore
import SceneStoreTesting
import Testing

@Suite struct PathBindingTests {
    private func binding(_ store: SceneStore) -> PathBinding<ScenePath> {
        PathBinding(store: store, key: "mixed.path", codec: .scenePath(types: testTypes))
    }

    private func samplePath() -> ScenePath {
        var path = ScenePath()
        path.append(7)
        path.append("letter")
        path.append(dune)
        path.append(Shelf.rated(stars: 5, by: "me"))
        return path
    }

    @Test func relaunchRestoresTheExactPath() async throws {
        let fixture = try await SceneStoreFixture()
        let path = samplePath()
        try await binding(fixture.registry.store(for: "main")).write(path)
        let relaunched = try await fixture.relaunch()
        let restored = try await #require(binding(relaunched.store(for: "main")).restore())
        #expect(restored.path == path)
        #expect(restored.dropped.isEmpty)
        await fixture.tearDown()
    }

    /// Saving on flush only: the path saved after the flush was never written.
    @Test func crashRestoresTheLastFlushedPathOnFlush() async throws {
        let fixture = try await SceneStoreFixture(configuration: .testing(savePolicy: .onFlush))
        let store = try await fixture.registry.store(for: "main")
        var path = samplePath()
        try binding(store).write(path)
        try await store.flush()
        let flushed = path
        path.append(99)
        try binding(store).write(path)
        let relaunched = try await fixture.crash()
        await #expect(try binding(relaunched.store(for: "main")).restore()?.path == flushed)
        await fixture.tearDown()
    }

    @Test func typedAndReferenceStacksRoundTrip() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let books = PathBinding(store: store, key: "books", codec: .stack(of: Book.self))
        try books.write([dune, emma])
        let library = [dune, emma, ulysses]
        let byID = PathBinding(store: store, key: "byID", codec: .references(to: Book.self) { id in
            library.first { $0.id == id }
        })
        try byID.write([ulysses, dune])
        let relaunched = try await fixture.relaunch()
        let store2 = try await relaunched.store(for: "main")
        #expect(PathBinding(store: store2, key: "books", codec: .stack(of: Book.self)).restore()?.path == [dune, emma])
        // Dune was deleted from the catalog meanwhile: dropped, order kept.
        let shrunk = [emma, ulysses]
        let restored = PathBinding(store: store2, key: "byID", codec: .references(to: Book.self) { id in
            shrunk.first { $0.id == id }
        }).restore()
        #expect(restored?.path == [ulysses])
        #expect(restored?.dropped.count == 1)
        await fixture.tearDown()
    }

    /// A binding reuses its last decoding of the same bytes only where the
    /// codec reads the bytes alone: references are resolved again on every
    /// restore, so an item the app deleted meanwhile is dropped at once.
    @Test func referencesAreResolvedAgainOnEveryRestoreOfTheSameBytes() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let library = Locked([dune, emma, ulysses])
        let byID = PathBinding(store: store, key: "byID", codec: .references(to: Book.self) { id in
            library.withLock { books in books.first { $0.id == id } }
        })
        try byID.write([ulysses, dune])
        #expect(byID.restore()?.path == [ulysses, dune])
        library.withLock { $0.removeAll { $0 == dune } }
        #expect(byID.restore()?.path == [ulysses])

        let history = PathBinding(store: store, key: "history", codec: .history(.stack(of: Book.self)))
        var books = NavigationHistory<[Book]>()
        books.push(dune)
        books.push(emma)
        try history.write(books)
        let first = history.restore()
        #expect(first?.path == books)
        #expect(history.restore()?.path == first?.path)
        await fixture.tearDown()
    }

    @Test func aPathPushedByAnotherProcessArrives() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let store = try await fixture.registry.store(for: "main")
        let mine = binding(store)
        let arrivals = mine.externalChanges()

        // Another writer, meeting this one only through the disk, as
        // another process would (real processes: ScenesCLITests).
        let pushed = {
            var path = samplePath()
            path.append("pushed elsewhere")
            return path
        }()
        let other = try await fixture.otherRegistry().store(for: "main")
        try other.set(try pushed.encoded(types: testTypes), forKey: "mixed.path")
        try await other.flush()

        let arrived = await arrivals.first { $0.path == pushed }
        #expect(arrived?.path == pushed)
        #expect(mine.restore()?.path == pushed)
        await fixture.tearDown()
    }

    @Test @MainActor func observableModelIsRestoredSavedAndFollowsOthers() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let store = try await fixture.registry.store(for: "main")
        try binding(store).write(samplePath())

        let model = NavigationModel()
        let modelChanges = model.pathChanges()
        let bound = binding(store).bind(\.path, on: model)
        #expect(model.path == samplePath())

        // A local push is saved without any explicit call.
        let saved = store.values(forKey: "mixed.path", default: Data())
        model.path.append(42)
        var expected = samplePath()
        expected.append(42)
        let expectedData = try expected.encoded(types: testTypes)
        #expect(await saved.first { $0 == expectedData } == expectedData)

        // Another registry on the root (another process to this one) pops to root.
        let other = try await fixture.otherRegistry(configuration: .init(savePolicy: .writeThrough))
        try await binding(other.store(for: "main")).write(ScenePath())
        try await other.store(for: "main").flush()
        // The model follows, on the main actor.
        #expect(await modelChanges.first { $0.isEmpty } != nil)
        #expect(model.path.isEmpty)
        bound.stop()
        await fixture.tearDown()
    }
}

@Observable @MainActor
final class NavigationModel {
    var path = ScenePath()

    /// Each new value of `path`, observed with Observation (no polling).
    func pathChanges() -> AsyncStream<ScenePath> {
        let (stream, continuation) = AsyncStream.makeStream(of: ScenePath.self)
        track(continuation)
        return stream
    }

    private func track(_ continuation: AsyncStream<ScenePath>.Continuation) {
        withObservationTracking {
            _ = path
        } onChange: {
            Task { @MainActor in
                continuation.yield(self.path)
                self.track(continuation)
            }
        }
    }
}
