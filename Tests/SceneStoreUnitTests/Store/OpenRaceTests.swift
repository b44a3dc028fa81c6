import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// Opening one scene from several threads at once reads it once: every
/// caller gets the store of that one reading, with what it found.
// Hang guard: its slowest test took 11 s here (2 cores); 3 minutes, as TSan runs it several times slower.
@Suite(.timeLimit(.minutes(3)))
struct OpenRaceTests {
    /// A damaged file opened by two threads at once: one reading moves it
    /// to quarantine, and both callers get the store that knows it
    /// (`lastQuarantined`). 30 rounds, each with its own root.
    @Test func twoThreadsOpeningADamagedSceneShareOneReading() async throws {
        for round in 0..<30 {
            let fixture = try await SceneStoreFixture()
            let registry = fixture.registry
            try Data("not a scene \(round)".utf8).write(to: fixture.root.appendingPathComponent("main.scene"))
            let opened = Locked<[SceneStore]>([])
            let ready = DispatchGroup()
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for _ in 0..<2 {
                ready.enter()
                done.enter()
                Thread.detachNewThread {
                    ready.leave()
                    start.wait()
                    if let store = try? registry.blockingStore(for: "main") { opened.withLock { $0.append(store) } }
                    done.leave()
                }
            }
            try await blockingWork {
                ready.wait()
                start.signal()
                start.signal()
                done.wait()
            }
            let stores = opened.withLock { $0 }
            #expect(stores.count == 2, "round \(round): an open failed")
            #expect(stores.count == 2 && stores[0] === stores[1], "round \(round): two stores for one scene")
            for store in stores {
                #expect(store.lastQuarantined != nil, "round \(round): a caller got a store that does not know of the recovery")
            }
            let quarantined = try FileManager.default.contentsOfDirectory(
                atPath: fixture.root.appendingPathComponent("quarantine").path)
            #expect(quarantined.count == 1, "round \(round): \(quarantined)")
            await fixture.tearDown()
        }
    }

    /// A load that fails is not kept: the next call reads again.
    @Test func aFailedOpenIsTriedAgainByTheNextCall() async throws {
        let fixture = try await SceneStoreFixture()
        let file = fixture.root.appendingPathComponent("main.scene")
        // A newer format cannot be opened, and is left as it is.
        try (Data("SCNSTORE".utf8) + [99, 0, 0, 0]).write(to: file)
        await #expect(throws: SceneStoreError.self) { try await fixture.registry.store(for: "main") }
        try FileManager.default.removeItem(at: file)
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        await fixture.tearDown()
    }
}
