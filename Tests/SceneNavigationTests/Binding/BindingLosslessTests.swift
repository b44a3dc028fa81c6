import Foundation
@testable import SceneNavigation
import SceneStore
import SceneStoreTesting
import Testing

/// A binding never erases what another process stored: not by writing back
/// a path it just applied, not by writing back a decode that left elements
/// out, not by replacing a path another process pushed onto meanwhile.
// Hang guard: its slowest test took 2 s here (2 cores); 3 minutes, as TSan and the load step run it several times slower.
@Suite(.timeLimit(.minutes(3)))
struct BindingLosslessTests {
    private let key = "mixed.path"

    private func stored(_ store: SceneStore) throws -> ScenePath? {
        guard let data = store.value(forKey: key, as: Data.self) else { return nil }
        return try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
    }

    /// Waits until `store` holds `expected` (read with every test type).
    private func arrival(of expected: ScenePath, in store: SceneStore) async -> Bool {
        if (try? stored(store)) == expected { return true }
        let key = self.key
        return await store.values(forKey: key, default: Data()).first(within: .seconds(30)) { data in
            (try? ScenePath.restore(from: data, types: testTypes, policy: .strict).path) == expected
        } != nil
    }

    @Test @MainActor func aReaderWithoutATagNeverErasesTheElementItCannotRead() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let writer = try await fixture.registry.store(for: "main")
        let readerStore = try await fixture.otherRegistry().store(for: "main")
        let readerWrites = LocalWrites(of: readerStore, key: key)
        let model = RecordingModel()
        let bound = PathBinding(store: readerStore, key: key, codec: .scenePath(types: intOnlyTypes))
            .bind(\.path, on: model)

        try writer.set(encodedPath([1, "kept?"]), forKey: key)
        try await writer.flush()
        #expect(await model.wait { $0 == scenePath([1]) })
        #expect(bound.keptAside.count == 1)

        // A push in the reader lands on top; the element it cannot read stays.
        model.path.append(2)
        #expect(await arrival(of: scenePath([1, "kept?", 2]), in: writer))
        try await readerStore.flush()
        #expect(try stored(readerStore) == scenePath([1, "kept?", 2]))
        // Nothing the reader ever wrote lacked it (no write-back of [1]).
        #expect(!readerWrites.values.isEmpty)
        for written in readerWrites.values {
            guard case .data(let data)? = written else {
                Issue.record("the reader removed the path")
                continue
            }
            let path = try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
            #expect(path.contains { ($0 as? String) == "kept?" }, "the reader wrote \(path)")
        }
        bound.stop()
        await fixture.tearDown()
    }

    @Test @MainActor func aPathAnotherWriterWroteKeepsTheElementThisOneCannotRead() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough))
        let store = try await fixture.registry.store(for: "main")
        let model = RecordingModel()
        let bound = PathBinding(store: store, key: key, codec: .scenePath(types: intOnlyTypes)).bind(\.path, on: model)

        // Another writer, meeting this one only through the disk, as
        // another process would (real processes: ScenesCLITests).
        let other = try await fixture.otherRegistry().store(for: "main")
        try other.set(try encodedPath([1, "kept?"]), forKey: key)
        try await other.flush()
        #expect(await model.wait { $0 == scenePath([1]) })
        model.path.append(2)
        #expect(await arrival(of: scenePath([1, "kept?", 2]), in: store))
        try await store.flush()

        let reader = try await fixture.otherRegistry(configuration: .init(watcher: .none, readOnly: true))
        let data = try await #require(try reader.store(for: "main").value(forKey: key, as: Data.self))
        #expect(try ScenePath.restore(from: data, types: testTypes, policy: .strict).path == scenePath([1, "kept?", 2]))
        bound.stop()
        await fixture.tearDown()
    }

    @Test func saveKeepsAnElementItCannotReadWhileTheElementsUnderItStay() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(encodedPath([1, "a", 3, "b"]), forKey: key)
        let binding = PathBinding(store: store, key: key, codec: .scenePath(types: intOnlyTypes))
        let restored = try #require(binding.restore())
        #expect(restored.path == scenePath([1, 3]))
        #expect(restored.dropped.count == 2)

        try binding.write(scenePath([1, 3, 4]))
        #expect(try stored(store) == scenePath([1, "a", 3, "b", 4]), "a push goes on top of everything")
        try binding.write(scenePath([1, 3]))
        #expect(try stored(store) == scenePath([1, "a", 3, "b"]), "a push and a pop give back what was stored")
        try binding.write(scenePath([1]))
        #expect(try stored(store) == scenePath([1, "a"]), "\"b\" sat on 3, which is gone; \"a\" sits on 1")
        try binding.write(scenePath([1, 5]))
        #expect(try stored(store) == scenePath([1, "a", 5]))
        try binding.write(ScenePath())
        #expect(try stored(store) == ScenePath(), "pop to root: everything sat on 1")

        try store.set(encodedPath(["z", 1]), forKey: key)
        try binding.write(ScenePath())
        #expect(try stored(store) == scenePath(["z"]), "an element under every readable one stays")
        try binding.replace(with: ScenePath())
        #expect(try stored(store) == ScenePath(), "replace drops it on purpose")
        await fixture.tearDown()
    }

    @Test func typedAndReferenceStacksKeepWhatTheyCannotRestore() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        // A stack of Books where one element no longer decodes as a Book.
        let books = PathBinding(store: store, key: "books", codec: .stack(of: Book.self))
        let mixed = Data(#"{"elements":[{"author":"Frank Herbert","id":1,"title":"Dune"},{"id":9,"pages":3,"title":"Old"}],"version":1}"#.utf8)
        try store.set(mixed, forKey: "books")
        #expect(books.restore()?.path == [dune])
        try books.write([dune, emma])
        let raw = try #require(store.value(forKey: "books", as: Data.self))
        #expect(try [BookBeforeRename].restore(from: raw, policy: .lenient).path == [BookBeforeRename(id: 9, title: "Old", pages: 3)])
        #expect(try [Book].restore(from: raw, policy: .lenient).path == [dune, emma])

        // A reference whose value this process's data lacks stays stored.
        let known = [dune, emma]
        let byID = PathBinding(store: store, key: "byID", codec: .references(to: Book.self) { id in
            known.first { $0.id == id }
        })
        try store.set([dune, ulysses].encodedReferences(), forKey: "byID")
        #expect(byID.restore()?.path == [dune])
        try byID.write([dune, emma])
        let references = try #require(store.value(forKey: "byID", as: Data.self))
        #expect(try [Int].restore(from: references, policy: .strict).path == [1, 3, 2])
        await fixture.tearDown()
    }

    @Test @MainActor func aLocalPushAndARemotePushAtTheSameTimeBothStay() async throws {
        // This registry does not watch: it learns of the other process's
        // push only when it commits its own, so the model pushes on a view
        // that is stale for sure (and the main actor is never blocked).
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .writeThrough, watcher: .none))
        let mine = try await fixture.registry.store(for: "main")
        let theirs = try await fixture.otherRegistry(configuration: .init(savePolicy: .writeThrough)).store(for: "main")
        let model = RecordingModel()
        let bound = PathBinding(store: mine, key: key, codec: .scenePath(types: testTypes)).bind(\.path, on: model)

        // The other process pushes 7.
        try theirs.set(encodedPath([7]), forKey: key)
        try await theirs.flush()
        // Meanwhile, this process's user pushes 8 on the root they see.
        model.path.append(8)

        #expect(await model.wait { $0 == scenePath([7, 8]) }, "model shows \(model.path)")
        #expect(await arrival(of: scenePath([7, 8]), in: theirs))
        bound.stop()
        await fixture.tearDown()
    }

    /// Two processes push onto [5] at the same moment, neither having seen
    /// the other's push: `commit` applies each under the scene lock to
    /// what the disk holds, so both elements stay.
    @Test func simultaneousCommitsFromTwoProcessesKeepBothPushes() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(
            savePolicy: .onFlush, watcher: .polling(interval: .seconds(3600))))
        let mine = try await fixture.registry.store(for: "main")
        let theirs = try await fixture.otherRegistry().store(for: "main")
        try mine.set(encodedPath([5]), forKey: key)
        try await mine.flush()
        _ = try await theirs.update(forKey: "sync", default: 0) { $0 }  // reads [5] from disk
        let a = PathBinding(store: mine, key: key, codec: .scenePath(types: testTypes))
        let b = PathBinding(store: theirs, key: key, codec: .scenePath(types: testTypes))
        async let first = a.commit(scenePath([5, 8]), from: scenePath([5]))
        async let second = b.commit(scenePath([5, 9]), from: scenePath([5]))
        let results = try await [first, second]
        #expect(results.contains(scenePath([5, 8, 9])) || results.contains(scenePath([5, 9, 8])), "\(results)")
        let relaunched = try await fixture.relaunch().store(for: "main")
        let final = try stored(relaunched)
        #expect(final == scenePath([5, 8, 9]) || final == scenePath([5, 9, 8]), "\(final)")
        await fixture.tearDown()
    }

    @Test func commitFromABaseRebasesAPushOnAPushMadeMeanwhile() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let binding = PathBinding(store: store, key: key, codec: .scenePath(types: testTypes))
        // The store took [7] from another process after the caller read [].
        try store.set(encodedPath([7]), forKey: key)
        try await store.flush()
        #expect(try await binding.commit(scenePath([8]), from: ScenePath()) == scenePath([7, 8]))
        #expect(try stored(store) == scenePath([7, 8]))
        // A pop is not rebased: the caller's path wins.
        #expect(try await binding.commit(scenePath([7]), from: scenePath([7, 8])) == scenePath([7]))
        #expect(try stored(store) == scenePath([7]))
        await fixture.tearDown()
    }
}

extension BindingLosslessTests {
    @Test func saveRefusesToWriteOverAPathOfANewerFormat() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let newer = Data(#"{"elements":[{"tag":"int","value":1}],"version":2}"#.utf8)
        try store.set(newer, forKey: key)
        let binding = PathBinding(store: store, key: key, codec: .scenePath(types: testTypes))
        #expect(binding.restore() == nil)
        #expect(throws: ScenePathError.self) { try binding.write(scenePath([5])) }
        #expect(store.value(forKey: key, as: Data.self) == newer)
        // Data that is no path at all has nothing to keep.
        try store.set(Data("junk".utf8), forKey: key)
        try binding.write(scenePath([5]))
        #expect(try stored(store) == scenePath([5]))
        await fixture.tearDown()
    }

    @Test func aCodecWithoutElementsRefusesToDropWhatItLeftOut() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        // Comma-separated numbers; anything else is left out.
        let codec = PathCodec<[Int]>(
            empty: [],
            encode: { Data($0.map(String.init).joined(separator: ",").utf8) },
            decode: { data in
                let parts = String(decoding: data, as: UTF8.self).split(separator: ",")
                let dropped = parts.enumerated().filter { Int($0.element) == nil }.map { position, part in
                    DroppedElement(position: position, tag: nil, reason: .undecodable(underlying: NotANumber(text: String(part))))
                }
                return RestoredPath(path: parts.compactMap { Int($0) }, dropped: dropped)
            })
        let binding = PathBinding(store: store, key: "numbers", codec: codec)
        try store.set(Data("1,x".utf8), forKey: "numbers")
        #expect(binding.restore()?.path == [1])
        #expect(throws: ElementsLeftOut.self) { try binding.write([1, 2]) }
        #expect(store.value(forKey: "numbers", as: Data.self) == Data("1,x".utf8))
        try binding.replace(with: [1, 2])
        #expect(store.value(forKey: "numbers", as: Data.self) == Data("1,2".utf8))
        await fixture.tearDown()
    }
}

/// What the comma-separated codec of `aCodecWithoutElementsRefusesToDropWhatItLeftOut` leaves out.
private struct NotANumber: Error {
    var text: String
}
