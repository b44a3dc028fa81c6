import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension CrossProcessSync {
    /// A value set and flushed by one process reaches another's streams.
    // Hang guard: its slowest test took 1 s here (2 cores); 1 minute, at least 4 times that.
    @Suite(.timeLimit(.minutes(1))) struct PropagationTests {
        @Test func setInAnotherProcessReachesTheChangeStream() async throws {
            try await checkSetReachesChangeStream(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
        }

        @Test func everyFlushedKeyOfAWriterArrives() async throws {
            let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, watcher: .automatic))
            let store = try await fixture.registry.store(for: "main")
            let changes = store.changes()
            let writer = try RunningScenes(["stress", "--scene", "main", "--count", "100", "--prefix", "k"], root: fixture.root, program: .lab)
            #expect(await writer.exitStatus(within: .seconds(30)) == 0)

            let received = await changes.prefix(100, within: .seconds(30))
            #expect(Set(received.map(\.key)) == Set((0..<100).map { "k\($0)" }))
            #expect(received.allSatisfy { $0.origin == .external(writerPID: writer.pid) })
            #expect(received.allSatisfy { change in change.newValue == .int(Int(change.key.dropFirst()) ?? -1) })
            #expect(store.snapshot.count == 100)
            await fixture.tearDown()
        }

        /// The benchmark runs end to end (its numbers mean something only in
        /// a release build: `swift run -c release scenes-lab bench propagation`).
        @Test func benchmarkReportsStoreAndFloorPercentiles() async throws {
            let scratch = FileManager.default.temporaryDirectory
            let result = try await scenes(["bench", "propagation", "--changes", "30", "--warmup", "5"], root: scratch, program: .lab)
            #expect(result.status == 0, "\(result.stderr)")
            struct Summary: Decodable { let count: Int; let p50Ms: Double; let p99Ms: Double; let meanMs: Double }
            struct Ratio: Decodable { let p50: Double; let p99: Double }
            struct Report: Decodable { let bench: String; let keys: Int; let sceneStore: Summary; let floor: Summary; let ratio: Ratio }
            let report = try #require(decodeJSON(Report.self, from: result.stdout.split(separator: "\n").last ?? ""))
            #expect(report.bench == "propagation" && report.keys == 100)
            #expect(report.sceneStore.count == 30 && report.floor.count == 30)
            #expect(report.sceneStore.p50Ms > 0 && report.floor.p50Ms > 0 && report.ratio.p50 > 0)
            #expect(report.sceneStore.p50Ms <= report.sceneStore.p99Ms)
            #expect(result.stdout.contains("SceneStore") && result.stdout.contains("floor"))
        }
    }
}

/// `scenes set` in another process; the change stream here yields the new
/// value, marked external with the writer's pid.
func checkSetReachesChangeStream(configuration: SceneRegistry.Configuration) async throws {
    let fixture = try await SceneStoreFixture(configuration: configuration)
    let store = try await fixture.registry.store(for: "main")
    let changes = store.changes()
    let setter = try RunningScenes(["set", "--scene", "main", "tab", "--int", "3"], root: fixture.root)
    let setterPID = setter.pid
    #expect(await setter.exitStatus(within: .seconds(30)) == 0)
    let durable = monotonicNow()

    let change = try #require(await changes.first(within: .seconds(30)) { $0.key == "tab" })
    let lag = milliseconds(monotonicNow() - durable)
    #expect(change.newValue == .int(3))
    #expect(change.oldValue == nil)
    #expect(change.origin == .external(writerPID: setterPID))
    #expect(store.value(forKey: "tab", default: 0) == 3)
    print("propagation (\(store.watcherKind?.description ?? "none")): seen \(String(format: "%.1f", lag)) ms after `scenes set` exited")
    await fixture.tearDown()
}
