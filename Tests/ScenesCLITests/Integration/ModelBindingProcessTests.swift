import Foundation
import Observation
import SceneStore
import SceneStoreTesting
import Testing

@Observable @MainActor final class EditorModel {
    var selectedTab = 0
    var query = ""

    /// `"<selectedTab> <query>"`, as Observation reports it: now, then
    /// after each change — what any observer of the model sees.
    var observedLines: Observations<String, Never> {
        Observations { "\(self.selectedTab) \(self.query)" }
    }
}

extension CrossProcessSync {
    /// An `@Observable` model bound with `SceneStore.bind(_:on:)` and a real
    /// `scenes` process on the same scene.
    @MainActor @Suite(.timeLimit(.minutes(1))) struct ModelBindingProcessTests {
        @Test func aValueSetByAnotherProcessReachesTheModelAndItsObservers() async throws {
            let fixture = try SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
            let store = try fixture.registry.store(for: "S")
            let model = EditorModel()
            let bound = store.bind([
                SceneProperty(\.selectedTab, forKey: "selectedTab"),
                SceneProperty(\.query, forKey: "query"),
            ], on: model)
            let lines = model.observedLines

            let result = try scenes(["set", "--scene", "S", "selectedTab", "--int", "5"], root: fixture.root)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await lines.first { $0 == "5 " } != nil)
            #expect(model.selectedTab == 5)

            // And back: the model's edit, flushed, is what the other process reads.
            model.query = "dune"
            _ = await store.changes().first { $0.key == "query" }
            try await store.flush()
            let read = try scenes(["get", "--scene", "S", "query"], root: fixture.root)
            #expect(read.stdout.trimmingCharacters(in: .newlines) == "dune")

            // Relaunched, a new model starts where both processes left the scene.
            bound.stop()
            let relaunched = try await fixture.relaunch().store(for: "S")
            let restored = EditorModel()
            let again = relaunched.bind([
                SceneProperty(\.selectedTab, forKey: "selectedTab"),
                SceneProperty(\.query, forKey: "query"),
            ], on: restored)
            #expect(restored.selectedTab == 5 && restored.query == "dune")
            again.stop()
            await fixture.tearDown()
        }
    }
}
