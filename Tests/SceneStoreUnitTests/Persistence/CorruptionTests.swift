import Foundation
import SceneStore
import SceneStoreTesting
import Testing

@Suite struct CorruptionTests {
    /// Writes a valid scene with `a = 1`, then damages it with `damage`.
    private func damagedScene(_ damage: (URL) throws -> Void) async throws -> (SceneStoreFixture, URL, Data) {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "a")
        try await fixture.registry.close()
        let file = fixture.root.appendingPathComponent("main.scene")
        try damage(file)
        return (fixture, file, try Data(contentsOf: file))
    }

    private func quarantined(in fixture: SceneStoreFixture) throws -> [URL] {
        let folder = fixture.root.appendingPathComponent("quarantine")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
    }

    @Test(arguments: ["truncated", "random", "badChecksum", "notAScene", "empty"])
    func damagedFileIsQuarantinedAndTheSceneStartsEmpty(kind: String) async throws {
        let (fixture, file, damaged) = try await damagedScene { file in
            let original = try Data(contentsOf: file)
            let bytes: Data
            switch kind {
            case "truncated": bytes = original.prefix(original.count / 2)
            case "random": bytes = Data((0..<512).map { _ in UInt8.random(in: 0...255) })
            case "badChecksum":
                // The entry a = 1 (key "a", tag 1, Int64 1) made a = 2, its checksum left as it was.
                let entry: [UInt8] = [1, 0, 0, 0, UInt8(ascii: "a"), 1, 1, 0, 0, 0, 0, 0, 0, 0]
                let at = try #require(original.firstRange(of: entry))
                var changed = original
                changed[at.lowerBound + 6] = 2
                bytes = changed
            case "notAScene": bytes = Data("hello".utf8)
            default: bytes = Data()
            }
            try bytes.write(to: file)
        }
        let registry = try await fixture.relaunch()
        let store = try await registry.store(for: "main")
        #expect(store.snapshot.isEmpty)
        let recovery = try #require(store.lastQuarantined)
        let evidence = try quarantined(in: fixture)
        #expect(evidence.count == 1)
        #expect(evidence.first?.path == recovery.quarantinedFile)
        #expect(try Data(contentsOf: URL(fileURLWithPath: recovery.quarantinedFile)) == damaged)
        #expect(!FileManager.default.fileExists(atPath: file.path))

        // The scene works again and the evidence stays.
        try store.set(2, forKey: "b")
        try await store.flush()
        #expect(try quarantined(in: fixture).count == 1)
        await fixture.tearDown()
    }

    @Test func newerFormatIsRefusedAndLeftUntouched() async throws {
        let (fixture, file, _) = try await damagedScene { file in
            var bytes = try Data(contentsOf: file)
            bytes[8] = 99
            try bytes.write(to: file)
        }
        let before = try Data(contentsOf: file)
        let registry = try await fixture.relaunch()
        await #expect(throws: SceneStoreError.unsupportedFormat(scene: "main", version: 99, path: file.path)) {
            try await registry.store(for: "main")
        }
        #expect(try Data(contentsOf: file) == before)
        #expect(!FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent("quarantine").path))
        await fixture.tearDown()
    }

    @Test func plantedSymlinkIsNeverFollowed() async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        let target = fixture.directory.appendingPathComponent("precious.txt")
        try Data("do not touch".utf8).write(to: target)
        let link = fixture.root.appendingPathComponent("main.scene")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        let store = try await fixture.registry.store(for: "main")
        #expect(store.snapshot.isEmpty)
        #expect(store.lastQuarantined != nil)
        try store.set(1, forKey: "k")
        try await store.flush()

        #expect(try String(contentsOf: target, encoding: .utf8) == "do not touch")
        let attributes = try FileManager.default.attributesOfItem(atPath: link.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        await fixture.tearDown()
    }

    @Test func leftoversOfACrashedWriterAreCleanedOnOpen() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "k")
        try await store.flush()
        let leftover = fixture.root.appendingPathComponent(".main~tmp-00000000deadbeef")
        try Data("half a write".utf8).write(to: leftover)
        let registry = try await fixture.crash()
        await #expect(try registry.store(for: "main").value(forKey: "k", default: 0) == 1)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        await fixture.tearDown()
    }
}
