import Foundation
import SceneStore
import SceneStoreTesting
import Testing

@Suite struct LimitsTests {
    @Test func keysMustBeOneTo256Bytes() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        #expect(throws: SceneStoreError.invalidKey("", limit: 256)) { try store.set(1, forKey: "") }
        let long = String(repeating: "é", count: 129)  // 258 bytes
        #expect(throws: SceneStoreError.invalidKey(long, limit: 256)) { try store.set(1, forKey: long) }
        try store.set(1, forKey: String(repeating: "k", count: 256))
        #expect(store.snapshot.count == 1)
    }

    @Test func oneValueAtMostOneMebibyte() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(Data(count: 1 << 20), forKey: "max")
        #expect(throws: SceneStoreError.valueTooLarge(key: "big", size: (1 << 20) + 1, limit: 1 << 20)) {
            try store.set(Data(count: (1 << 20) + 1), forKey: "big")
        }
        #expect(store.snapshot["big"] == nil)
    }

    @Test func sceneSizeIsLimitedAndTheFailedSetChangesNothing() async throws {
        var configuration = SceneRegistry.Configuration.testing
        configuration.limits.maxSceneBytes = 100
        let fixture = try await SceneStoreFixture(configuration: configuration)
        let store = try await fixture.registry.store(for: "main")
        try store.set(String(repeating: "a", count: 90), forKey: "a")  // 91 bytes
        #expect(throws: SceneStoreError.sceneTooLarge(scene: "main", key: "b", size: 91 + 11, limit: 100)) {
            try store.set(String(repeating: "b", count: 10), forKey: "b")
        }
        #expect(store.snapshot.keys.sorted() == ["a"])
        // Replacing a value counts only the difference.
        try store.set(String(repeating: "c", count: 99), forKey: "a")
        store.removeValue(forKey: "a")
        try store.set(String(repeating: "b", count: 10), forKey: "b")
    }

    @Test func limitsAboveTheLargestAnyProcessReadsAreLoweredToIt() {
        var limits = SceneRegistry.Limits()
        limits.maxKeyBytes = 1 << 20
        limits.maxValueBytes = 1 << 30
        limits.maxSceneBytes = 1 << 30
        #expect(limits == .largest)
        #expect(SceneRegistry.Limits.largest.maxValueBytes == 64 << 20)
    }

    @Test func errorsNameTheKeyAndTheLimit() {
        let error = SceneStoreError.valueTooLarge(key: "photo", size: 2_000_000, limit: 1_048_576)
        #expect(error.description.contains("photo"))
        #expect(error.description.contains("1048576"))
    }
}
