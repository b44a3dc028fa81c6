import Foundation
import Observation
import SceneStore
import SceneStoreTesting
import Testing

@Observable @MainActor final class WindowModel {
    var selectedTab = 0
    var query = ""
    var zoom: Double? = nil
}

extension WindowModel {
    /// The bound properties as one line: `"2 dune 1.5"`.
    var line: String { "\(selectedTab) \(query) \(zoom.map { "\($0)" } ?? "nil")" }

    /// Whether the model comes to show `expected`, as any observer of it
    /// sees it: read now, then after each change Observation reports.
    func shows(_ expected: String) async -> Bool {
        await observedValue({ self.line }, until: { $0 == expected }) != nil
    }
}

@MainActor func bindAll(_ store: SceneStore, _ model: WindowModel) -> BoundModel {
    store.bind([
        SceneProperty(\.selectedTab, key: SceneKey("selectedTab", default: 0)),
        SceneProperty(\.query, key: SceneKey("query", default: "")),
        SceneProperty(\.zoom, key: SceneKey("zoom", default: nil)),
    ], on: model)
}

/// `SceneStore.bind(_:on:)` keeps an `@Observable` model's properties in a
/// scene: restored at bind, saved on change, following other writers.
// Hang guard: its slowest test took 10 s here (2 cores); 3 minutes, as TSan and the load step run it several times slower.
@MainActor @Suite(.timeLimit(.minutes(3))) struct ModelBindingTests {
    @Test func restoresAtBindSavesChangesAndSurvivesRelaunch() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(3, forKey: "selectedTab")
        let model = WindowModel()
        let bound = bindAll(store, model)
        #expect(model.line == "3  nil")
        #expect(store.snapshot == ["selectedTab": .int(3)], "binding wrote nothing")

        model.query = "dune"
        model.zoom = 1.5
        let saved = await store.changes().first { _ in store.snapshot.count == 3 }
        #expect(saved != nil)
        #expect(store.snapshot == ["selectedTab": .int(3), "query": .string("dune"), "zoom": .double(1.5)])
        bound.stop()

        let relaunched = try await fixture.relaunch().store(for: "main")
        let restored = WindowModel()
        let again = bindAll(relaunched, restored)
        #expect(restored.line == "3 dune 1.5")
        restored.zoom = nil
        _ = await relaunched.changes().first { $0.key == "zoom" }
        #expect(relaunched.snapshot["zoom"] == nil, "nil removes the key")
        again.stop()
        await fixture.tearDown()
    }

    /// The handle `bind` returns need not be kept: a binding whose result
    /// was discarded (`_ =`, as the compiler's fix-it for an unused result
    /// suggests) still saves the model's edits and shows other writers'.
    @Test func aDiscardedHandleKeepsTheBindingRunning() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
        let store = try await fixture.registry.store(for: "main")
        let model = WindowModel()
        _ = bindAll(store, model)

        model.query = "kept"
        #expect(await store.changes().first { $0.key == "query" }?.newValue == .string("kept"))
        let other = try await fixture.otherRegistry().store(for: "main")
        try other.set(7, forKey: "selectedTab")
        try await other.flush()
        #expect(await model.shows("7 kept nil"))
        await fixture.tearDown()
    }

    /// Another writer on the same root (as another process sees it) changes
    /// a key: the model shows it and its observers are notified.
    @Test func showsWhatAnotherWriterStoredAndNotifiesObservers() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
        let model = WindowModel()
        let bound = await bindAll(try fixture.registry.store(for: "main"), model)
        let other = try await fixture.otherRegistry().store(for: "main")
        try other.set(5, forKey: "selectedTab")
        try other.set("hail mary", forKey: "query")
        try await other.flush()

        #expect(await model.shows("5 hail mary nil"))
        #expect(model.line == "5 hail mary nil")
        _ = bound
        await fixture.tearDown()
    }

    @Test func aDiscardShowsTheDefaults() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(4, forKey: "selectedTab")
        let model = WindowModel()
        let bound = bindAll(store, model)
        #expect(model.selectedTab == 4)
        try await fixture.registry.discard("main")
        #expect(await model.shows("0  nil"))
        _ = bound
        await fixture.tearDown()
    }

    /// A key holding another kind shows the default and is never
    /// overwritten by it; only an edit of the model writes.
    @Test func neverWritesADefaultOverAValueOfAnotherKind() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set("not a number", forKey: "selectedTab")
        let model = WindowModel()
        let bound = bindAll(store, model)
        #expect(model.selectedTab == 0)
        model.query = "x"
        _ = await store.changes().first { $0.key == "query" }
        #expect(store.snapshot["selectedTab"] == .string("not a number"))
        _ = bound
        await fixture.tearDown()
    }

    /// A value over the limit: logged, `lastError` says why, and the
    /// property shows the stored value again.
    @Test func aRefusedChangeIsReportedAndRevertsTheProperty() async throws {
        let log = LogCapture()
        var limits = SceneRegistry.Limits()
        limits.maxValueBytes = 4
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, limits: limits, logger: log.logger()))
        let store = try await fixture.registry.store(for: "main")
        let model = WindowModel()
        let bound = bindAll(store, model)
        model.query = "ok"
        _ = await store.changes().first { $0.key == "query" }
        model.query = "much too long"
        #expect(await model.shows("0 ok nil"))
        #expect(bound.lastError == .valueTooLarge(key: "query", size: 13, limit: 4))
        #expect(log.warnings().contains { $0.contains("query") })
        #expect(store.snapshot["query"] == .string("ok"))
        await fixture.tearDown()
    }

    @Test func afterStopNothingIsSavedOrShown() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let model = WindowModel()
        let bound = bindAll(store, model)
        let witness = WindowModel()
        let second = bindAll(store, witness)
        bound.stop()
        model.selectedTab = 9
        try store.set("later", forKey: "query")
        // The witness shows the change: the main actor has run past the
        // stopped binding's turn, which neither saved nor showed anything.
        #expect(await witness.shows("0 later nil"))
        #expect(model.line == "9  nil")
        #expect(store.snapshot["selectedTab"] == nil)
        second.stop()
        await fixture.tearDown()
    }

    /// A `@SceneStored` property and a bound model on the same key agree.
    @Test func aWrapperAndABoundModelShareTheKey() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let model = WindowModel()
        let bound = bindAll(store, model)
        @SceneStored("selectedTab", store: store) var selectedTab = 0
        selectedTab = 2
        #expect(await model.shows("2  nil"))
        model.selectedTab = 1
        _ = await store.changes().first { $0.key == "selectedTab" }
        #expect(selectedTab == 1)
        _ = bound
        await fixture.tearDown()
    }
}
