import Foundation
import SceneStore
import SceneStoreTesting
import Testing

@Suite struct FileFormatTests {
    @Test func rootIs0700AndSceneFilesAre0600() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        #expect(try permissions(of: fixture.root) == 0o700)
        #expect(try permissions(of: fixture.root.appendingPathComponent("main.scene")) == 0o600)
        #expect(try permissions(of: fixture.root.appendingPathComponent(".scenestore.lock")) == 0o600)
        await fixture.tearDown()
    }

    @Test func sceneFileIsFormatThreeNamedAfterTheScene() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "work-1")
        try store.set("hello", forKey: "greeting")
        try await store.flush()
        try store.set(2, forKey: "count")
        try await store.flush()

        // The first save's snapshot, then the second's record after it.
        let data = try Data(contentsOf: fixture.root.appendingPathComponent("work-1.scene"))
        #expect(data.prefix(12) == Data("SCNSTORE".utf8) + [3, 0, 0, 0])
        let layout = try SceneFileLayout(data)
        #expect(layout.snapshotGeneration == 1)
        #expect(layout.records == 1)
        let file = try SceneFile.decode(data).get()
        #expect(file.scene == "work-1")
        #expect(file.generation == 2)
        #expect(file.writer.pid == getpid())
        #expect(file.values == ["greeting": .string("hello"), "count": .int(2)])
        #expect(store.generation == 2)
        await fixture.tearDown()
    }

    @Test func writesDoNotLeaveTemporaryFilesBehind() async throws {
        let live = try await SceneStoreFixture()
        let other = try await live.registry.store(for: "main")
        for i in 0..<20 {
            try other.set(i, forKey: "k")
            try await other.flush()
        }
        try await live.registry.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: live.root.path).sorted()
        #expect(names.allSatisfy { !$0.contains("~tmp-") })
        #expect(names.contains("main.scene"))
        await live.tearDown()
    }

    private func permissions(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }
}
