import Foundation
import Observation
import SceneStore
import SceneStoreTesting
import Testing

private struct Layout: Codable, Sendable, Equatable {
    var sidebarWidth = 240
    var columns = 2
}

/// The same layout a year later: a new property, a new schema version.
private struct LayoutV2: Codable, Sendable, Equatable {
    var sidebarWidth = 240
    var columns = 2
    var theme: String? = nil
}

private struct Bookmark: Codable, Sendable, Equatable {
    var title = ""
}

extension SceneKey where Value == Layout {
    fileprivate static var layout: Self { .init("layout", tag: "layout", version: 1, default: Layout()) }
}

extension SceneKey where Value == LayoutV2 {
    fileprivate static var layoutV2: Self { .init("layout", tag: "layout", version: 2, default: LayoutV2()) }
}

extension SceneKey where Value == Bookmark {
    /// Another type reading the layout's key.
    fileprivate static var bookmarkAtLayout: Self { .init("layout", tag: "bookmark", default: Bookmark()) }
}

@Observable @MainActor
private final class Window {
    var layout = Layout()
}

/// Whether `error` says the key holds data its model key cannot read.
private func isUnreadable(_ error: any Error, tag: String, because reason: String) -> Bool {
    guard case .unreadableModel(key: "layout", tag: tag, let said)? = error as? SceneStoreError else { return false }
    return said.contains(reason)
}

/// Codable models kept as JSON `Data` under a registered tag and version,
/// through the same keys, wrappers, bindings and streams as plain values.
// Hang guard: its slowest test took 11 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8))) struct ModelKeyTests {
    @Test func aModelRoundTripsThroughRelaunchAsTaggedJSONData() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        #expect(store[.layout] == Layout(), "the default while the key is empty")
        try store.set(Layout(sidebarWidth: 300, columns: 3), for: .layout)

        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(try relaunched.value(for: .layout) == Layout(sidebarWidth: 300, columns: 3))
        let data = try #require(relaunched.value(forKey: "layout", as: Data.self))
        #expect(String(decoding: data, as: UTF8.self)
            == #"{"format":"scenestore.model","tag":"layout","value":{"columns":3,"sidebarWidth":300},"version":1}"#)
        await fixture.tearDown()
    }

    /// A model key is bound, wrapped and streamed like a key of the six
    /// kinds: the binding restores and saves the model, the wrapper reads
    /// and writes it, and the stream yields each new model.
    @MainActor
    @Test func aModelIsBoundWrappedAndStreamed() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(Layout(sidebarWidth: 300), for: .layout)

        let window = Window()
        let bound = store.bind([SceneProperty(\.layout, key: .layout)], on: window)
        #expect(window.layout == Layout(sidebarWidth: 300), "restored into the model")
        var models = store.values(for: .layout).makeAsyncIterator()
        #expect(await models.next() == Layout(sidebarWidth: 300), "the stream starts with the current model")

        window.layout.columns = 5
        #expect(await models.next() == Layout(sidebarWidth: 300, columns: 5), "the model's edit was set and streamed")

        @SceneStored(.layout, store: store) var wrapped: Layout
        #expect(wrapped == Layout(sidebarWidth: 300, columns: 5), "the wrapper reads what the binding saved")
        wrapped.sidebarWidth = 200
        #expect(await models.next() == Layout(sidebarWidth: 200, columns: 5))
        let updated = try await $wrapped.update { $0.columns += 1 }
        #expect(updated == Layout(sidebarWidth: 200, columns: 6))
        #expect(await models.next() == updated)
        try await bound.flush()
        #expect(window.layout == updated, "the model shows the wrapper's update")

        bound.stop()
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched[.layout] == updated, "durable")
        await fixture.tearDown()
    }

    @Test func anotherTagIsATypedErrorAndIsNotOverwritten() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(Layout(sidebarWidth: 1), for: .layout)
        let mismatch = { (error: any Error) in isUnreadable(error, tag: "bookmark", because: "tagged \"layout\"") }
        #expect(store[.bookmarkAtLayout] == Bookmark(), "the subscript reads the default")
        #expect(performing: { try store.value(for: .bookmarkAtLayout) }, throws: mismatch)
        #expect(performing: { try store.set(Bookmark(title: "x"), for: .bookmarkAtLayout) }, throws: mismatch)
        await #expect(performing: { try await store.update(.bookmarkAtLayout) { $0.title = "y" } }, throws: mismatch)
        #expect(store[.layout] == Layout(sidebarWidth: 1), "nothing was lost")
        await fixture.tearDown()
    }

    /// Version 2 wrote the key; version-1 code refuses to read or write
    /// it, and version-2 code reads what version 1 wrote.
    @Test func aNewerSchemaIsATypedErrorAndAnOlderOneDecodes() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(Layout(sidebarWidth: 5), for: .layout)
        #expect(try store.value(for: .layoutV2) == LayoutV2(sidebarWidth: 5, theme: nil))

        store.removeValue(for: .layout)
        try store.set(LayoutV2(theme: "dark"), for: .layoutV2)
        let newer = SceneStoreError.newerModel(key: "layout", tag: "layout", stored: 2, supported: 1)
        #expect(throws: newer) { try store.value(for: .layout) }
        #expect(throws: newer) { try store.set(Layout(), for: .layout) }
        await #expect(throws: newer) { try await store.update(.layout) { $0.columns = 9 } }
        #expect(store[.layoutV2] == LayoutV2(theme: "dark"))
        await fixture.tearDown()
    }

    @Test func otherKindsAndForeignDataAreTypedErrors() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(3, forKey: "layout")
        let wrongKind = SceneStoreError.wrongType(key: "layout", stored: "int", expected: "a stored model")
        #expect(throws: wrongKind) { try store.value(for: .layout) }
        #expect(throws: wrongKind) { try store.set(Layout(), for: .layout) }
        let foreign = { (error: any Error) in isUnreadable(error, tag: "layout", because: "not a stored model") }
        try store.set(Data("{\"columns\":1}".utf8), forKey: "layout")
        #expect(performing: { try store.value(for: .layout) }, throws: foreign)
        try store.set(Data([0xff, 0x00]), forKey: "layout")
        #expect(performing: { try store.value(for: .layout) }, throws: foreign)
        #expect(performing: { try store.set(Layout(), for: .layout) }, throws: foreign)
        #expect(store.value(forKey: "layout", as: Data.self) == Data([0xff, 0x00]), "never overwritten")
        await fixture.tearDown()
    }

    @Test func aModelThatNoLongerDecodesIsATypedError() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let shapeChanged = #"{"format":"scenestore.model","tag":"layout","value":{"columns":"two"},"version":1}"#
        try store.set(Data(shapeChanged.utf8), forKey: "layout")
        #expect(performing: { try store.value(for: .layout) }, throws: {
            isUnreadable($0, tag: "layout", because: "version 1 no longer decodes")
        })
        try store.set(Layout(columns: 4), for: .layout)
        #expect(store[.layout].columns == 4, "the key's own tag may be replaced")
        await fixture.tearDown()
    }

    /// `update` is a read-modify-write under the scene lock, also between
    /// two registries on one root.
    @Test func updatesFromTwoWritersNeverLoseEachOther() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .polling(interval: .seconds(3600))))
        let mine = try await fixture.registry.store(for: "main")
        let theirs = try await fixture.otherRegistry().store(for: "main")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in [mine, theirs] {
                group.addTask {
                    for _ in 0..<50 { try await store.update(.layout) { $0.columns += 1 } }
                }
            }
            try await group.waitForAll()
        }
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched[.layout].columns == 102)
        await fixture.tearDown()
    }
}
