import Foundation
import MultiProcessSupport
import SceneStore
import SceneStoreTesting
import Testing

extension MultiProcess {
    /// Releases 1, 2 and 3 of an example app (`scenes-lab release N`) on
    /// one scene: a model stored by an older release is migrated once and
    /// every later release sees the newest; an older release never writes
    /// over a newer one's model.
    // Hang guard: its slowest test took 1 s here (2 cores); 1 minute, at least 4 times that.
    @Suite(.timeLimit(.minutes(1))) struct UpgradeTests {
        private static let key = "window.layout"

        /// The schema version of the stored layout, read from the disk.
        private static func storedVersion(root: URL) async throws -> Int? {
            guard case .data(let data)? = try await onDisk("main", root: root).values[key] else { return nil }
            return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["version"] as? Int
        }

        private static func release(_ release: Int, _ arguments: [String], root: URL) async throws -> ScenesResult {
            try await scenes(["release", "\(release)"] + arguments + ["--scene", "main"], root: root, program: .lab)
        }

        @Test func aModelOfRelease1IsMigratedOnceAndEveryLaterReleaseSeesTheNewest() async throws {
            let fixture = try await SceneStoreFixture()
            let root = fixture.root
            #expect(try await Self.release(1, ["write", "--width", "310"], root: root).stdout == "wrote\n")
            #expect(try await Self.storedVersion(root: root) == 1)

            let second = try await Self.release(2, ["read"], root: root)
            #expect(second.stdout == "migrated true\nmodel {\"columns\":2,\"sidebarWidth\":310}\n", "\(second.stderr)")
            #expect(try await Self.storedVersion(root: root) == 2)
            let secondAgain = try await Self.release(2, ["read"], root: root)
            #expect(secondAgain.stdout.hasPrefix("migrated false\n"), "migrated once")

            let third = try await Self.release(3, ["read"], root: root)
            #expect(third.stdout == """
                migrated true
                model {"columns":2,"sidebar":{"collapsed":false,"width":310}}

                """, "\(third.stderr)")
            #expect(try await Self.storedVersion(root: root) == 3)
            let newest = try await onDisk("main", root: root).values[Self.key]

            for older in [1, 2] {
                let refused = try await Self.release(older, ["read"], root: root)
                #expect(refused.status == 3)
                #expect(refused.stdout.hasPrefix("refused key \"window.layout\" holds \"window-layout\" version 3"), "\(refused.stdout)")
                let write = try await Self.release(older, ["write", "--width", "1"], root: root)
                #expect(write.status != 0, "release \(older) refuses to write over version 3")
            }
            #expect(try await onDisk("main", root: root).values[Self.key] == newest, "left untouched")
            #expect(try await Self.release(3, ["read"], root: root).stdout.hasPrefix("migrated false\n"))
            await fixture.tearDown()
        }

        /// Release 2 opened the scene before release 3 wrote and has no
        /// watcher, so its view is stale: its first write passes the check
        /// against memory and is dropped by the save's check under the lock;
        /// every later one is refused at once.
        @Test func anOlderReleaseWithAStaleViewNeverWritesOverTheNewerModel() async throws {
            let fixture = try await SceneStoreFixture()
            let root = fixture.root
            _ = try await Self.release(2, ["write", "--width", "100"], root: root)
            let older = try RunningScenes(
                ["release", "2", "hammer", "--no-watch", "--count", "5", "--width", "1", "--scene", "main"] + contendedWriter,
                root: root, program: .lab)
            let log = LineLog(older)
            #expect(await log.next(within: .seconds(60)) { $0 == "ready" } != nil)
            _ = try await Self.release(3, ["write", "--width", "300"], root: root)
            let newest = try await onDisk("main", root: root).values[Self.key]

            older.send("go")
            let done = await log.next(within: .seconds(120)) { $0.hasPrefix("done") }
            #expect(done == "done written 0 kept-newer 1 refused 4", "\(older.errorOutput.suffix(1000))")
            #expect(await older.exitStatus() == 0)
            #expect(try await onDisk("main", root: root).values[Self.key] == newest)
            await fixture.tearDown()
        }

        /// Releases 2 and 3 store layouts at once, with their watchers, 10
        /// rounds: release 2 may write before release 3's first write, never
        /// after its last, so the scene ends with release 3's last layout.
        @Test func releases2And3WritingAtOnceEndWithTheNewerModel() async throws {
            var downgrades = 0
            for round in 0..<10 {
                let fixture = try await SceneStoreFixture()
                let root = fixture.root
                let writers = try [2, 3].map { release in
                    try RunningScenes(
                        ["release", "\(release)", "hammer", "--count", "20", "--width", "\(release * 1000)", "--scene", "main"]
                            + contendedWriter,
                        root: root, program: .lab)
                }
                let logs = writers.map(LineLog.init)
                for log in logs { #expect(await log.next(within: .seconds(60)) { $0 == "ready" } != nil) }
                for writer in writers { writer.send("go") }
                for (index, log) in logs.enumerated() {
                    let done = await log.next(within: .seconds(180)) { $0.hasPrefix("done") }
                    #expect(done != nil, "release \(index + 2), round \(round): \(writers[index].errorOutput.suffix(1000))")
                    #expect(await writers[index].exitStatus() == 0)
                }
                let stored = try await onDisk("main", root: root).values[Self.key]
                guard case .data(let data)? = stored,
                      let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                      let value = document["value"] as? [String: Any],
                      let sidebar = value["sidebar"] as? [String: Any] else {
                    downgrades += 1
                    await fixture.tearDown()
                    continue
                }
                #expect(document["version"] as? Int == 3)
                #expect(sidebar["width"] as? Int == 3019, "release 3's last layout, round \(round)")
                await fixture.tearDown()
            }
            #expect(downgrades == 0, "rounds that ended with release 2's layout")
        }
    }
}
