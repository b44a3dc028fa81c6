import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore

/// Files a store did not write: each either loads with every key intact,
/// or is moved to quarantine (never followed, never read whole when huge),
/// and nothing traps.
@Suite struct HostileFileTests {
    private func sceneFile(_ fixture: SceneStoreFixture, _ id: String = "main") -> URL {
        fixture.root.appendingPathComponent("\(id).scene")
    }

    /// Writes `values` as a valid scene file of `id` with `generation`.
    private func plant(
        _ fixture: SceneStoreFixture, _ id: String = "main", generation: UInt64 = 1,
        values: [String: SceneValue], sceneField: String? = nil
    ) throws {
        let file = SceneFile(
            scene: sceneField ?? id, generation: generation, incarnation: "00000000000000aa",
            writer: WriterIdentity(pid: 1, token: "00000000000000bb"), values: values)
        try file.encoded().write(to: sceneFile(fixture, id))
    }

    @Test(arguments: [
        0x7FF8_0000_0000_0123 as UInt64,  // quiet NaN with a payload
        0xFFF8_0000_0000_0000,            // -nan, what 0.0/0.0 gives on x86
        0x7FF0_0000_0000_0001,            // signalling NaN
    ])
    func aNaNWithAPayloadKeepsEveryKeyOfTheScene(bits: UInt64) async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(Double(bitPattern: bits), forKey: "nan")
        try store.set("kept", forKey: "other")
        try await store.flush()
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.lastQuarantined == nil)
        #expect(relaunched.value(forKey: "other", default: "") == "kept")
        #expect(relaunched.value(forKey: "nan", default: 0.0).isNaN)
        #expect(relaunched.snapshot["nan"] == .double(Double(bitPattern: bits)))
        await fixture.tearDown()
    }

    @Test(arguments: [UInt64.max, UInt64.max - 1, UInt64(Int64.max) + 1])
    func aGenerationThatCannotGrowIsDamageNotATrap(generation: UInt64) async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        try plant(fixture, generation: generation, values: ["a": .int(1)])
        let store = try await fixture.registry.store(for: "main")
        #expect(store.lastQuarantined != nil)
        try store.set(2, forKey: "b")
        try await store.flush()
        #expect(try await fixture.relaunch().store(for: "main").value(forKey: "b", default: 0) == 2)
        await fixture.tearDown()
    }

    @Test func aQuarantineFolderThatIsASymlinkIsNeverFollowed() async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        let elsewhere = fixture.directory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            at: fixture.root.appendingPathComponent("quarantine"), withDestinationURL: elsewhere)
        let damaged = Data("not a scene".utf8)
        try damaged.write(to: sceneFile(fixture))

        await #expect(throws: SceneStoreError.self) { try await fixture.registry.store(for: "main") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
        #expect(try Data(contentsOf: sceneFile(fixture)) == damaged)
        await fixture.tearDown()
    }

    @Test func aHugeFileIsQuarantinedWithoutBeingRead() async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        // Sparse: large on paper, no disk used; larger than any scene of
        // `Limits.largest` (64 MiB) can be on disk. A read of it would take
        // 4 GiB of memory; a size check takes none.
        #expect(FileManager.default.createFile(atPath: sceneFile(fixture).path, contents: nil))
        let handle = try FileHandle(forWritingTo: sceneFile(fixture))
        try handle.truncate(atOffset: 4 << 30)
        try handle.close()
        let store = try await fixture.registry.store(for: "main")
        let recovery = try #require(store.lastQuarantined)
        #expect(recovery.reason.contains("larger"))
        await fixture.tearDown()
    }

    @Test(arguments: [
        ("empty key", ["": SceneValue.int(1)]),
        ("NUL in a key", ["a\u{0}b": SceneValue.int(1)]),
        ("5000-byte key", [String(repeating: "k", count: 5000): SceneValue.int(1)]),
        ("65 MiB value", ["big": SceneValue.data(Data(count: 65 << 20))]),
    ])
    func aFileBreakingTheLimitsIsQuarantined(name: String, values: [String: SceneValue]) async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        try plant(fixture, values: values)
        let store = try await fixture.registry.store(for: "main")
        #expect(store.snapshot.isEmpty, "\(name)")
        #expect(store.lastQuarantined != nil, "\(name)")
        await fixture.tearDown()
    }

    /// Limits bound writes: a key, value or scene above this process's
    /// limits but within `Limits.largest` is another process's data, read
    /// as it is (before, it was quarantined as damage).
    @Test(arguments: [
        ("300-byte key", [String(repeating: "k", count: 300): SceneValue.int(1)]),
        ("2 MiB value", ["big": SceneValue.data(Data(count: 2 << 20))]),
        ("9 MiB scene", ["a": SceneValue.data(Data(count: 1 << 20 - 1))].merging((0..<9).map { ("k\($0)", SceneValue.data(Data(count: 1 << 20 - 2))) }) { $1 }),
    ])
    func aFileAboveThisProcesssLimitsIsRead(name: String, values: [String: SceneValue]) async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        try plant(fixture, values: values)
        let store = try await fixture.registry.store(for: "main")
        #expect(store.snapshot == values, "\(name)")
        #expect(store.lastQuarantined == nil, "\(name)")
        await fixture.tearDown()
    }

    @Test func aFileOfAnotherSceneIsNotLoadedAsThisOne() async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        try plant(fixture, "dst", values: ["secret": .string("src's")], sceneField: "src")
        let store = try await fixture.registry.store(for: "dst")
        #expect(store.snapshot.isEmpty)
        #expect(store.lastQuarantined?.reason.contains("src") == true)
        await fixture.tearDown()
    }

    @Test(arguments: [0 as UInt8, 2])
    func aFormatVersionBelowThreeIsMalformed(version: UInt8) async throws {
        let fixture = try await SceneStoreFixture()
        _ = fixture.registry
        try plant(fixture, values: ["a": .int(1)])
        var bytes = try Data(contentsOf: sceneFile(fixture))
        bytes[8] = version
        try bytes.write(to: sceneFile(fixture))
        let store = try await fixture.registry.store(for: "main")
        #expect(store.snapshot.isEmpty)
        #expect(store.lastQuarantined != nil)
        await fixture.tearDown()
    }

    @Test func duplicateKeysAreMalformed() {
        var bytes = SceneFileBytes()
        bytes.snapshot(generation: 1, entries: [("a", .int(1)), ("a", .int(2))])
        guard case .failure(.malformed) = SceneFile.decode(bytes.data) else {
            Issue.record("a file with a duplicate key decoded")
            return
        }
    }
}
