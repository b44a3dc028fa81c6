import Foundation
import Logging
import SceneStore
import SceneStoreServiceLifecycle
import SceneStoreTesting
import ServiceLifecycle
import Testing

/// The registry in a service group: a graceful shutdown is a quit.
// Hang guard: its slowest test took 2 s in its layer here, 65 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct SceneRegistryServiceTests {
    @Test func aGracefulShutdownSavesTheEditAndKeepsTheWindowForTheNextLaunch() async throws {
        let fixture = try await SceneStoreFixture(configuration: .init(watcher: .none))
        let scenes = fixture.registry
        let window = try await scenes.newScene(title: "Notes")
        try window.set("unsaved", forKey: "text")
        let group = ServiceGroup(services: [SceneRegistryService(scenes)], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        try await running.value

        let next = try await fixture.otherRegistry()
        let restorable = try await next.scenesToRestore()
        #expect(restorable.map(\.id) == [window.id])
        #expect(restorable.first?.state == .restorable(.relaunch))
        let store = try #require(try await next.reopen(window.id))
        #expect(store.value(forKey: "text", default: "") == "unsaved")
        await fixture.tearDown()
    }
}
