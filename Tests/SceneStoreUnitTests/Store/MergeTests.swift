import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// Two registries on one root behave as two processes: separate writer
/// identities, separate lock descriptors, separate watchers.
@Suite struct MergeTests {
    @Test func differentKeysFromTwoWritersAreBothKept() async throws {
        let fixture = try await SceneStoreFixture()
        let a = try await fixture.registry.store(for: "main")
        let b = try await fixture.otherRegistry().store(for: "main")
        try a.set(1, forKey: "a")
        try b.set(2, forKey: "b")
        try await a.flush()
        try await b.flush()
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").snapshot == ["a": .int(1), "b": .int(2)])
        await fixture.tearDown()
    }

    @Test func aSaveMergesWhatTheOtherWroteAndReportsItAsExternal() async throws {
        let fixture = try await SceneStoreFixture()
        let a = try await fixture.registry.store(for: "main")
        let b = try await fixture.otherRegistry().store(for: "main")
        // The change arrives through the watcher or through the merge of
        // a's next save, whichever comes first; exactly once either way.
        let changes = a.changes()
        try b.set("from b", forKey: "shared")
        try await b.flush()
        try a.set(1, forKey: "mine")
        try await a.flush()
        let external = await changes.first { $0.key == "shared" }
        #expect(external?.newValue == .string("from b"))
        #expect(external?.origin == .external(writerPID: getpid()))
        #expect(a.value(forKey: "shared", default: "") == "from b")
        await fixture.tearDown()
    }

    @Test func removesArePendingEditsToo() async throws {
        let fixture = try await SceneStoreFixture()
        let a = try await fixture.registry.store(for: "main")
        try a.set(1, forKey: "gone")
        try a.set(2, forKey: "stays")
        try await a.flush()
        let b = try await fixture.otherRegistry().store(for: "main")
        b.removeValue(forKey: "gone")
        try await b.flush()
        try a.set(3, forKey: "new")
        try await a.flush()
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").snapshot == ["stays": .int(2), "new": .int(3)])
        await fixture.tearDown()
    }

    @Test func generationsGrowByOnePerSave() async throws {
        let fixture = try await SceneStoreFixture()
        let a = try await fixture.registry.store(for: "main")
        let b = try await fixture.otherRegistry().store(for: "main")
        for i in 0..<10 {
            try a.set(i, forKey: "a")
            try await a.flush()
            try b.set(i, forKey: "b")
            try await b.flush()
        }
        #expect(b.generation == 20)
        await fixture.tearDown()
    }
}
