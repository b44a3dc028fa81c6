import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing

/// What the windows' index leaves behind when its writer is killed.
// Hang guard: each test takes well under a second here; 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct WindowLockTests {
    static func configuration(lockTimeout: Duration) -> SceneRegistry.Configuration {
        SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none, lockTimeout: lockTimeout)
    }

    /// Temp files of the index that killed writers left (named as the
    /// writer names them) are gone after the next launch that opens a
    /// window; the index is intact. 10 leftovers, 3 launches.
    @Test func indexTempFilesKilledWritersLeftAreRemovedByTheNextLaunch() async throws {
        let fixture = try SceneStoreFixture(configuration: Self.configuration(lockTimeout: .seconds(10)))
        let kept = try await fixture.registry.newScene(title: "kept").id
        try await fixture.registry.close()
        let directory = SceneDirectory(root: fixture.root)
        for _ in 0..<10 {
            let leftover = directory.sessionIndexTempPath(token: randomToken())
            #expect(FileManager.default.createFile(atPath: leftover, contents: Data(repeating: 0x41, count: 4096)))
        }
        for launch in 0..<3 {
            let registry = try await fixture.relaunch()
            let restorable = try await registry.scenesToRestore()
            #expect(restorable.map(\.id) == [kept], "launch \(launch)")
            #expect(try await registry.reopen(kept) != nil, "launch \(launch)")
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)
            let temps = names.filter { SceneDirectory.isSessionIndexTemp($0) }
            #expect(temps.isEmpty, "launch \(launch): \(temps.count) temp files of the index are still there")
        }
        await fixture.tearDown()
    }
}
