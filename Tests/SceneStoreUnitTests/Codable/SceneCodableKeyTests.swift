import Foundation
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

extension SceneCodableKey where Model == Layout {
    fileprivate static var layout: Self { .init("layout", tag: "layout", version: 1, default: Layout()) }
}

extension SceneCodableKey where Model == LayoutV2 {
    fileprivate static var layoutV2: Self { .init("layout", tag: "layout", version: 2, default: LayoutV2()) }
}

extension SceneCodableKey where Model == Bookmark {
    /// Another type reading the layout's key.
    fileprivate static var bookmarkAtLayout: Self { .init("layout", tag: "bookmark", default: Bookmark()) }
}

/// Codable models kept as JSON `Data` under a registered tag and version.
// Ten minutes, as every suite: a guard against a hang. Two registries
// make 100 durable updates, and in the first minute of a full CI run,
// beside 450 other tests, that took more than 60 s once.
// Hang guard: its slowest test took 11 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8))) struct SceneCodableKeyTests {
    @Test func aModelRoundTripsThroughRelaunchAsTaggedJSONData() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        #expect(try store.decode(.layout) == Layout(), "the default while the key is empty")
        try store.encode(Layout(sidebarWidth: 300, columns: 3), for: .layout)

        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(try relaunched.decode(.layout) == Layout(sidebarWidth: 300, columns: 3))
        let data = try #require(relaunched.value(forKey: "layout", as: Data.self))
        #expect(String(decoding: data, as: UTF8.self)
            == #"{"format":"scenestore.model","tag":"layout","value":{"columns":3,"sidebarWidth":300},"version":1}"#)
        await fixture.tearDown()
    }

    @Test func anotherTagIsATypedErrorAndIsNotOverwritten() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.encode(Layout(sidebarWidth: 1), for: .layout)
        let mismatch = SceneCodableError.tagMismatch(key: "layout", stored: "layout", expected: "bookmark")
        #expect(throws: mismatch) { try store.decode(.bookmarkAtLayout) }
        #expect(throws: mismatch) { try store.encode(Bookmark(title: "x"), for: .bookmarkAtLayout) }
        await #expect(throws: mismatch) { try await store.update(.bookmarkAtLayout) { $0.title = "y" } }
        #expect(try store.decode(.layout) == Layout(sidebarWidth: 1), "nothing was lost")
        await fixture.tearDown()
    }

    /// Version 2 wrote the key; version-1 code refuses to read or write
    /// it, and version-2 code reads what version 1 wrote.
    @Test func aNewerSchemaIsATypedErrorAndAnOlderOneDecodes() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.encode(Layout(sidebarWidth: 5), for: .layout)
        #expect(try store.decode(.layoutV2) == LayoutV2(sidebarWidth: 5, theme: nil))

        store.removeValue(forKey: "layout")
        try store.encode(LayoutV2(theme: "dark"), for: .layoutV2)
        let newer = SceneCodableError.newerSchema(key: "layout", tag: "layout", stored: 2, supported: 1)
        #expect(throws: newer) { try store.decode(.layout) }
        #expect(throws: newer) { try store.encode(Layout(), for: .layout) }
        await #expect(throws: newer) { try await store.update(.layout) { $0.columns = 9 } }
        #expect(try store.decode(.layoutV2) == LayoutV2(theme: "dark"))
        await fixture.tearDown()
    }

    @Test func otherKindsAndForeignDataAreTypedErrors() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(3, forKey: "layout")
        #expect(throws: SceneCodableError.wrongKind(key: "layout", stored: .int)) { try store.decode(.layout) }
        #expect(throws: SceneCodableError.wrongKind(key: "layout", stored: .int)) { try store.encode(Layout(), for: .layout) }
        try store.set(Data("{\"columns\":1}".utf8), forKey: "layout")
        #expect(throws: SceneCodableError.notAModel(key: "layout")) { try store.decode(.layout) }
        try store.set(Data([0xff, 0x00]), forKey: "layout")
        #expect(throws: SceneCodableError.notAModel(key: "layout")) { try store.decode(.layout) }
        #expect(store.value(forKey: "layout", as: Data.self) == Data([0xff, 0x00]), "never overwritten")
        await fixture.tearDown()
    }

    @Test func aModelThatNoLongerDecodesIsATypedError() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let shapeChanged = #"{"format":"scenestore.model","tag":"layout","value":{"columns":"two"},"version":1}"#
        try store.set(Data(shapeChanged.utf8), forKey: "layout")
        #expect {
            try store.decode(.layout)
        } throws: { error in
            guard case .undecodable(key: "layout", tag: "layout", version: 1, _)? = error as? SceneCodableError else { return false }
            return true
        }
        try store.encode(Layout(columns: 4), for: .layout)
        #expect(try store.decode(.layout).columns == 4, "the key's own tag may be replaced")
        await fixture.tearDown()
    }

    /// `update` is a read-modify-write under the scene lock, also between
    /// two registries on one root.
    @Test func updatesFromTwoWritersNeverLoseEachOther() async throws {
        let fixture = try SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .polling(interval: .seconds(3600))))
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
        #expect(try relaunched.decode(.layout).columns == 102)
        await fixture.tearDown()
    }
}
