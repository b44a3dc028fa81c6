import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// `close()` racing `set`: every set that returned normally is on disk once
/// `close()` returns; every set after the closing point throws `.closed`.
// Ten minutes, as every suite: a guard against a hang, not a speed
// check. Alone the 450 rounds take 5 s; in the whole suite on 2 cores,
// 85-91 s.
// Hang guard: its slowest test took 18 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8))) struct CloseRaceTests {
    @Test(arguments: [SceneRegistry.SavePolicy.writeThrough, .coalesced(.milliseconds(1)), .onFlush])
    func closeKeepsEverySetThatReturned(policy: SceneRegistry.SavePolicy) async throws {
        let rounds = 150
        var lost = 0
        for round in 0..<rounds {
            let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: policy))
            let store = try await fixture.registry.store(for: "main")
            let writer = Task.detached { () -> Int in
                var last = -1
                for value in 0..<100_000 {
                    do {
                        try store.set(value, forKey: "counter")
                        last = value
                    } catch {
                        #expect(error as? SceneStoreError == .closed(scene: "main"))
                        break
                    }
                    if value % 64 == 0 { await Task.yield() }
                }
                return last
            }
            // Let the writer get going for a varying while, then close.
            for _ in 0..<(round % 20) { await Task.yield() }
            try await fixture.registry.close()
            let last = await writer.value
            let reopened = try await SceneRegistry(root: fixture.root, configuration: .testing)
            let onDisk = try await reopened.store(for: "main").value(forKey: "counter", default: -1)
            if onDisk != last { lost += 1 }
            try await reopened.close()
            await fixture.tearDown()
        }
        #expect(lost == 0, "\(lost) of \(rounds) rounds lost the last set that returned")
    }
}
