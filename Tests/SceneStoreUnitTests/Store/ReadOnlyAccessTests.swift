import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// A registry opened `.readOnly` reads and changes nothing on disk;
/// `.none` starts no file watcher.
@Suite struct ReadOnlyAccessTests {
    static func readOnly(_ root: URL) async throws -> SceneRegistry {
        try await SceneRegistry(root: root, configuration: .init(watcher: .none, readOnly: true))
    }

    static func listing(_ directory: URL) -> [String] {
        (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func aMissingRootStaysMissingAndWritesThrow() async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("absent")
        let registry = try await Self.readOnly(root)
        await #expect(try registry.sceneIDs() == [])
        let store = try await registry.store(for: "main")
        #expect(store.snapshot.isEmpty)
        #expect(registry.watcherKind == nil)
        #expect(throws: SceneStoreError.readOnly(scene: "main")) { try store.set(1, forKey: "k") }
        #expect(throws: SceneStoreError.readOnly(scene: "main")) { try store.set(nil as Int?, forKey: "k") }
        store.removeValue(forKey: "k")
        await #expect(throws: SceneStoreError.readOnly(scene: "main")) { try await store.flush() }
        await #expect(throws: SceneStoreError.readOnly(scene: "main")) { try await registry.discard("main") }
        try await registry.close()
        #expect(!FileManager.default.fileExists(atPath: root.path))
        await fixture.tearDown()
    }

    @Test func readsAnExistingSceneAndLeavesTheRootAsItWas() async throws {
        let fixture = try await SceneStoreFixture()
        let writer = try await fixture.registry.store(for: "main")
        try writer.set(7, forKey: "k")
        try await fixture.registry.close()
        try FileManager.default.removeItem(at: fixture.root.appendingPathComponent(".scenestore.lock"))
        try Data("damaged".utf8).write(to: fixture.root.appendingPathComponent("broken.scene"))
        let before = Self.listing(fixture.root)

        let registry = try await Self.readOnly(fixture.root)
        await #expect(try registry.sceneIDs().map(\.rawValue) == ["broken", "main"])
        let store = try await registry.store(for: "main")
        #expect(store.value(forKey: "k", default: 0) == 7)
        await #expect(try registry.store(for: "broken").snapshot.isEmpty)
        #expect(throws: SceneStoreError.readOnly(scene: "main")) { try store.set(8, forKey: "k") }
        try await registry.close()

        #expect(Self.listing(fixture.root) == before)
        #expect(try Data(contentsOf: fixture.root.appendingPathComponent("broken.scene")) == Data("damaged".utf8))
        let again = try await Self.readOnly(fixture.root)
        await #expect(try again.store(for: "main").value(forKey: "k", default: 0) == 7)
        try await again.close()
        await fixture.tearDown()
    }

    @Test func noWatcherPreferenceStartsNone() async throws {
        let fixture = try await SceneStoreFixture()
        let registry = try await SceneRegistry(root: fixture.root, configuration: .init(watcher: .none))
        #expect(registry.watcherKind == nil)
        let store = try await registry.store(for: "main")
        #expect(store.watcherKind == nil)
        try store.set(1, forKey: "k")
        try await registry.close()
        let relaunched = try await fixture.relaunch()
        await #expect(try relaunched.store(for: "main").value(forKey: "k", default: 0) == 1)
        await fixture.tearDown()
    }
}
