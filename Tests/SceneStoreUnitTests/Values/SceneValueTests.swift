import Foundation
import SceneStore
import SceneStoreTesting
import Testing

enum Tab: String, SceneStorable { case mixed, books, library }
enum Level: Int, SceneStorable { case low = 1, high = 2 }

@Suite struct SceneValueTests {
    @Test func everyStorableKindReadsBackAsItself() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(true, forKey: "bool")
        try store.set(-5, forKey: "int")
        try store.set(0.25, forKey: "double")
        try store.set("žluťoučký kůň 🐎", forKey: "string")
        try store.set(URL(string: "https://example.com/a?b=c")!, forKey: "url")
        try store.set(Data([0, 1, 255]), forKey: "data")
        try store.set(Tab.books, forKey: "tab")
        try store.set(Level.high, forKey: "level")
        try store.set(Optional(7), forKey: "optional")

        #expect(store.value(forKey: "bool", default: false) == true)
        #expect(store.value(forKey: "int", default: 0) == -5)
        #expect(store.value(forKey: "double", default: 0.0) == 0.25)
        #expect(store.value(forKey: "string", default: "") == "žluťoučký kůň 🐎")
        #expect(store.value(forKey: "url", as: URL.self)?.absoluteString == "https://example.com/a?b=c")
        #expect(store.value(forKey: "data", default: Data()) == Data([0, 1, 255]))
        #expect(store.value(forKey: "tab", default: Tab.mixed) == .books)
        #expect(store.value(forKey: "level", default: Level.low) == .high)
        #expect(store.value(forKey: "optional", default: Int?.none) == 7)
    }

    @Test func readingAnotherKindReturnsTheDefault() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set("not a number", forKey: "count")
        #expect(store.value(forKey: "count", default: 42) == 42)
        #expect(store.value(forKey: "count", as: Int.self) == nil)
        #expect(store.value(forKey: "count", default: Tab.library) == .library)
        #expect(store.value(forKey: "count", default: "x") == "not a number")
    }

    @Test func settingNilRemovesTheKey() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(3, forKey: "k")
        try store.set(Int?.none, forKey: "k")
        #expect(store.snapshot["k"] == nil)
    }

    @Test func typedKeysReadAtTheCallSite() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        #expect(store[.selectedTab] == .mixed)
        try store.set(.library, for: .selectedTab)
        #expect(store[.selectedTab] == .library)
        #expect(store.value(forKey: "selectedTab", default: "") == "library")
    }

    @Test func doublesCompareByBitPattern() {
        #expect(SceneValue.double(.nan) == .double(.nan))
        #expect(SceneValue.double(0.0) != .double(-0.0))
        #expect(SceneValue.int(1) != .double(1))
    }

    @Test(arguments: ["", ".", "..", ".hidden", "a/b", "../x", "a\0b", "tab\t", "é", String(repeating: "a", count: 129)])
    func invalidSceneIDsAreRejectedBeforeAnyFileIsTouched(id: String) async throws {
        let fixture = try await SceneStoreFixture()
        await #expect(throws: SceneStoreError.self) { try await fixture.registry.store(for: id) }
        // The root's lock file is the registry's own, made when it opened.
        let entries = try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)
        #expect(entries == [RootLock.fileName])
    }

    @Test(arguments: ["a", "main", "A.b_c-9", String(repeating: "z", count: 128)])
    func validSceneIDsAreAccepted(id: String) throws {
        #expect(try SceneID(id).rawValue == id)
    }
}

extension SceneKey where Value == Tab {
    static var selectedTab: Self { .init("selectedTab", default: .mixed) }
}
