// The Swift blocks of the SceneStoreTesting.docc articles, compiled as in
// ArticleExamples+SceneStore.swift (same rules: blocks split at blank
// lines, lines compared without leading whitespace). `ArticleDriftTests`
// fails when a block of an article is missing here.
//
// Unlike the other examples, these run: the `@Test` functions the articles
// show are tests of this target, in a suite per article, and the statement
// blocks are the bodies of tests that make their fixture and tear it down.
// Every fixture is a fresh temporary root, never the user's state
// directory. `Settings` is in ReadmeStandIns.swift.

// SceneStoreTesting.md
import SceneStore
import SceneStoreTesting
import Testing

extension SceneKey where Value == Int {
    static var tab: Self { .init("tab", default: 0) }
}

// TestingRelaunchAndCrashes.md, "Another writer": the key at file scope.
extension SceneKey where Value == String {
    static var search: Self { .init("search", default: "") }
}

@Suite struct SceneStoreTestingArticle {
    @Test func tabSurvivesRelaunch() async throws {
        let fixture = try await SceneStoreFixture()
        try await fixture.registry.store(for: "main").set(2, for: .tab)
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main")[.tab] == 2)
        await fixture.tearDown()
    }
}

@Suite struct TestingRelaunchAndCrashesArticle {
    // Decide what is durable
    @Test func savesOnFlushOnly() async throws {
        let fixture = try await SceneStoreFixture(configuration: .testing(savePolicy: .onFlush))
        #expect(fixture.configuration.savePolicy == .onFlush)
        #expect(try await SceneStoreFixture().configuration.savePolicy == .coalesced(.milliseconds(30)))
        await fixture.tearDown()
    }

    // Relaunch
    @Test @MainActor func settingsComeBack() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let settings = Settings()
        let binding = store.bind([SceneProperty(\.selectedTab, key: .tab)], on: settings)
        let updates = store.updates()
        settings.selectedTab = 2
        _ = await updates.first(within: .seconds(10)) { $0.changes.contains { $0.key == "tab" } }   // the binding set it
        binding.stop()

        let relaunched = try await fixture.relaunch()
        let restored = Settings()
        let again = try await relaunched.store(for: "main").bind(
            [SceneProperty(\.selectedTab, key: .tab)], on: restored)
        #expect(restored.selectedTab == 2)
        again.stop()
        await fixture.tearDown()
    }

    // Crash
    @Test func tabSurvivesCrashOnFlush() async throws {
        let fixture = try await SceneStoreFixture(configuration: .testing(savePolicy: .onFlush))
        let store = try await fixture.registry.store(for: "main")
        try store.set(2, for: .tab)
        try await store.flush()
        try store.set(3, for: .tab)                       // never flushed
        let after = try await fixture.crash()
        await #expect(try after.store(for: "main")[.tab] == 2)
        await fixture.tearDown()
    }

    // Another writer
    @Test func anotherWritersChangeArrives() async throws {
        let fixture = try await SceneStoreFixture()
        let mine = try await fixture.registry.store(for: "main")
        let updates = mine.updates()
        let theirs = try await fixture.otherRegistry().store(for: "main")
        try theirs.set("dune", for: .search)
        try await theirs.flush()
        let update = try #require(await updates.first(within: .seconds(10)) { $0.changes.contains { $0.key == "search" } })
        #expect(update.origin != .local)
        await fixture.tearDown()
    }

    // Without a disk
    @Test func tabSurvivesRelaunchInMemory() async throws {
        let fixture = try await SceneStoreFixture(inMemory: true)
        try await fixture.registry.store(for: "main").set(2, for: .tab)
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main")[.tab] == 2)
        await fixture.tearDown()
    }
}
