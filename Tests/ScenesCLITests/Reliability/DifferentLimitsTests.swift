import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Limits bound what a process writes, not what it reads: a scene written
/// by a process allowed larger values is read whole by one with the
/// default limits, never quarantined. Before, one `scenes set` with the
/// default limits quarantined the scene of a process allowed 4 MiB values
/// and wrote a new file holding its own key alone, which that process then
/// adopted: 4 of 4 acknowledged keys gone from its memory and from disk.
// Hang guard: it takes about 1 s here (2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct DifferentLimitsTests {
    @Test func aSceneOverTheDefaultLimitsIsReadAndKeptByAProcessWithThem() async throws {
        var configuration = SceneRegistry.Configuration(savePolicy: .onFlush)
        configuration.limits.maxValueBytes = 4 << 20
        let fixture = try await SceneStoreFixture(configuration: configuration)
        let store = try await fixture.registry.store(for: "main")
        let big = Data(repeating: 7, count: 2_000_000)
        try store.set("a", forKey: "a")
        try store.set("b", forKey: "b")
        try store.set(big, forKey: "big")
        try store.set("c", forKey: "c")
        try await store.flush()
        let changes = store.changes()

        let get = try await scenes(["get", "--scene", "main", "a"], root: fixture.root)
        #expect(get.status == 0 && get.stdout.contains("a"), "\(get.stderr)")
        let set = try await scenes(["set", "--scene", "main", "other", "--int", "1"], root: fixture.root)
        #expect(set.status == 0, "\(set.stderr)")

        let heard = await changes.prefix(1, within: .seconds(30))
        #expect(heard.map(\.key) == ["other"])
        let expected: [String: SceneValue] = ["a": .string("a"), "b": .string("b"), "big": .data(big), "c": .string("c"), "other": .int(1)]
        #expect(store.snapshot == expected)
        let quarantine = fixture.root.appendingPathComponent("quarantine").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: quarantine)) ?? []).isEmpty)
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.snapshot == expected)
        await fixture.tearDown()
    }
}
