import Foundation
import SceneNavigation
import SceneStore
import SceneStoreTesting
import Testing

/// An app's last edit before it quits is the most common edit there is:
/// a bound model's path edit made right before `close()` (or `stop()`,
/// then `close()`) is on disk after relaunch, every round. `close()` runs
/// in the same main-actor turn as the edit, so nothing but the close
/// itself can hand the edit over.
// Hang guard: its slowest test took 15 s in its layer here, 155 s in the whole suite (every test at once on 2 cores); 4 minutes.
@MainActor @Suite(.timeLimit(.minutes(4)))
struct BindingCloseTests {
    static let rounds = 30
    private let key = "mixed.path"

    enum Ending: String, CaseIterable, Sendable { case close, stopThenClose, flush }

    @Test(arguments: Ending.allCases)
    func anEditRightBeforeQuittingSurvivesRelaunch(_ ending: Ending) async throws {
        let fixture = try await SceneStoreFixture(configuration: .init())
        let codec = PathCodec<ScenePath>.scenePath(types: testTypes)
        var errors: [String] = []
        for round in 0..<Self.rounds {
            let registry = fixture.registry
            let model = RecordingModel()
            let bound = await PathBinding(store: try registry.store(for: "main"), key: key, codec: codec).bind(\.path, on: model)
            model.path.append(round)
            switch ending {
            case .close:
                break
            case .stopThenClose:
                bound.stop()
            case .flush:
                try await bound.flush()
                try await fixture.crash()  // only what flush made durable survives
                continue
            }
            try await fixture.relaunch()
            if let error = bound.lastError { errors.append("\(round): \(error)") }
        }
        let data = try await #require(try fixture.registry.store(for: "main").value(forKey: key, as: Data.self))
        let restored = try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        let kept = Set(restored.compactMap { $0 as? Int })
        let lost = (0..<Self.rounds).filter { !kept.contains($0) }
        #expect(errors.isEmpty, "\(errors)")
        #expect(lost.isEmpty, "\(ending): lost \(lost.count) of \(Self.rounds): \(lost)")
        print("binding close, path, \(ending): lost \(lost.count) of \(Self.rounds)")
        await fixture.tearDown()
    }

    /// An edit after `stop()` is not the binding's to save.
    @Test func anEditAfterStopIsNotSaved() async throws {
        let fixture = try await SceneStoreFixture()
        let model = RecordingModel()
        let bound = await PathBinding(store: try fixture.registry.store(for: "main"), key: key, codec: .scenePath(types: testTypes))
            .bind(\.path, on: model)
        model.path.append(1)
        bound.stop()
        model.path.append(2)
        let relaunched = try await fixture.relaunch()
        let data = try await #require(try relaunched.store(for: "main").value(forKey: key, as: Data.self))
        #expect(try ScenePath.restore(from: data, types: testTypes, policy: .strict).path == scenePath([1]))
        await fixture.tearDown()
    }
}
