import Foundation
import Observation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

@Observable @MainActor final class EditorModel {
    var selectedTab = 0
    var query = ""

    /// Whether the model comes to show `expected` as `"<selectedTab>
    /// <query>"`, as any observer of it sees it: read now, then after each
    /// change Observation reports.
    func shows(_ expected: String) async -> Bool {
        await observedValue({ "\(self.selectedTab) \(self.query)" }, until: { $0 == expected }) != nil
    }
}

extension CrossProcessSync {
    /// An `@Observable` model bound with `SceneStore.bind(_:on:)` and a real
    /// `scenes` process on the same scene.
    // Hang guard: its slowest test took under 1 s here (2 cores); 3 minutes, as the load step runs it several times slower.
    @MainActor @Suite(.timeLimit(.minutes(3))) struct ModelBindingProcessTests {
        @Test func aValueSetByAnotherProcessReachesTheModelAndItsObservers() async throws {
            let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
            let store = try await fixture.registry.store(for: "S")
            let model = EditorModel()
            let bound = store.bind([
                SceneProperty(\.selectedTab, key: SceneKey("selectedTab", default: 0)),
                SceneProperty(\.query, key: SceneKey("query", default: "")),
            ], on: model)
            let result = try await scenes(["set", "--scene", "S", "selectedTab", "--int", "5"], root: fixture.root)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await model.shows("5 "))
            #expect(model.selectedTab == 5)

            // And back: the model's edit, flushed, is what the other process reads.
            model.query = "dune"
            _ = await store.changes().first { $0.key == "query" }
            try await store.flush()
            let read = try await scenes(["get", "--scene", "S", "query"], root: fixture.root)
            #expect(read.stdout.trimmingCharacters(in: .newlines) == "dune")

            // Relaunched, a new model starts where both processes left the scene.
            bound.stop()
            let relaunched = try await fixture.relaunch().store(for: "S")
            let restored = EditorModel()
            let again = relaunched.bind([
                SceneProperty(\.selectedTab, key: SceneKey("selectedTab", default: 0)),
                SceneProperty(\.query, key: SceneKey("query", default: "")),
            ], on: restored)
            #expect(restored.selectedTab == 5 && restored.query == "dune")
            again.stop()
            await fixture.tearDown()
        }
    }
}
