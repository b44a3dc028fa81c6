import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// A bound model's edit made right before `close()` (or `stop()`, then
/// `close()`) is on disk after relaunch, every round: `close()` runs in
/// the same main-actor turn as the edit, so nothing but the close itself
/// can hand the edit over.
// Hang guard: its slowest test took 15 s in its layer here, 155 s in the whole suite (every test at once on 2 cores); 4 minutes.
@MainActor @Suite(.timeLimit(.minutes(4)))
struct ModelBindingCloseTests {
    static let rounds = 30

    enum Ending: String, CaseIterable, Sendable { case close, stopThenClose, flush }

    @Test(arguments: Ending.allCases)
    func anEditRightBeforeQuittingSurvivesRelaunch(_ ending: Ending) async throws {
        let fixture = try await SceneStoreFixture(configuration: .init())
        var lost: [Int] = []
        for round in 1...Self.rounds {
            let model = WindowModel()
            let bound = await bindAll(try fixture.registry.store(for: "main"), model)
            model.selectedTab = round
            switch ending {
            case .close:
                try await fixture.relaunch()
            case .stopThenClose:
                bound.stop()
                try await fixture.relaunch()
            case .flush:
                try await bound.flush()
                try await fixture.crash()  // only what flush made durable survives
            }
            if try await fixture.registry.store(for: "main").value(forKey: "selectedTab", default: 0) != round { lost.append(round) }
        }
        #expect(lost.isEmpty, "\(ending): lost \(lost.count) of \(Self.rounds): \(lost)")
        print("binding close, properties, \(ending): lost \(lost.count) of \(Self.rounds)")
        await fixture.tearDown()
    }

    /// An edit after `stop()` is not the binding's to save.
    @Test func anEditAfterStopIsNotSaved() async throws {
        let fixture = try await SceneStoreFixture()
        let model = WindowModel()
        let bound = await bindAll(try fixture.registry.store(for: "main"), model)
        model.selectedTab = 1
        bound.stop()
        model.selectedTab = 2
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").value(forKey: "selectedTab", default: 0) == 1)
        await fixture.tearDown()
    }
}
