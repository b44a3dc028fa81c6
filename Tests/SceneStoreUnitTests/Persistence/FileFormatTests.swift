import Foundation
import SceneStore
import SceneStoreTesting
import Testing

@Suite struct FileFormatTests {
    @Test func rootIs0700AndSceneFilesAre0600() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        #expect(try permissions(of: fixture.root) == 0o700)
        #expect(try permissions(of: fixture.root.appendingPathComponent("main.json")) == 0o600)
        #expect(try permissions(of: fixture.root.appendingPathComponent(".scenestore.lock")) == 0o600)
        await fixture.tearDown()
    }

    @Test func sceneFileIsReadableJSONNamedAfterTheScene() async throws {
        let fixture = try SceneStoreFixture()
        let store = try await fixture.registry.store(for: "work-1")
        try store.set("hello", forKey: "greeting")
        try await store.flush()
        try store.set(2, forKey: "count")
        try await store.flush()

        // One JSON object after every commit: the first save's document,
        // then the second's record in its log.
        let data = try Data(contentsOf: fixture.root.appendingPathComponent("work-1.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? String == "scenestore.scene")
        #expect(object["version"] as? Int == 2)
        #expect(object["scene"] as? String == "work-1")
        #expect(object["generation"] as? Int == 1)
        #expect((object["writer"] as? [String: Any])?["pid"] as? Int == Int(getpid()))
        #expect((object["checksum"] as? String)?.hasPrefix("fnv1a64:") == true)
        let values = try #require(object["values"] as? [String: [String: Any]])
        #expect(values["greeting"]?["type"] as? String == "string")
        #expect(values["greeting"]?["value"] as? String == "hello")
        let log = try #require(object["log"] as? [[String: Any]])
        #expect(log.count == 1)
        #expect(log.first?["generation"] as? Int == 2)
        #expect((log.first?["writer"] as? [String: Any])?["pid"] as? Int == Int(getpid()))
        let set = try #require(log.first?["set"] as? [String: [String: Any]])
        #expect(set["count"]?["type"] as? String == "int")
        #expect(set["count"]?["value"] as? Int == 2)
        #expect((log.first?["checksum"] as? String)?.hasPrefix("fnv1a64:") == true)
        #expect(store.generation == 2)
        await fixture.tearDown()
    }

    @Test func writesDoNotLeaveTemporaryFilesBehind() async throws {
        let live = try SceneStoreFixture()
        let other = try await live.registry.store(for: "main")
        for i in 0..<20 {
            try other.set(i, forKey: "k")
            try await other.flush()
        }
        try await live.registry.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: live.root.path).sorted()
        #expect(names.allSatisfy { !$0.contains("~tmp-") })
        #expect(names.contains("main.json"))
        await live.tearDown()
    }

    private func permissions(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }
}
