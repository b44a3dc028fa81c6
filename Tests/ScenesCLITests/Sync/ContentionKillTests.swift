import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension CrossProcessSync {
    /// Writers killed with SIGKILL while they contend for the scene lock
    /// (one holds it, the others wait for it): the scene always loads,
    /// complete, and the lock never wedges.
    @Suite struct ContentionKillTests {
        // Hang guard: it took 6 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
        @Test(.timeLimit(.minutes(8)))
        func killedContendersNeverWedgeTheLockOrDamageTheScene() async throws {
            let fixture = try await SceneStoreFixture()
            // Watches the scene without a lock and without recovering
            // anything: a damaged file stays for `onDisk` to see.
            let watcher = try await SceneRegistry(root: fixture.root, configuration: .init(watcher: .inotify, readOnly: true))
            defer { watcher.abandon() }
            let watched = try await watcher.store(for: "s")
            let rounds = 30
            var kills = 0
            for round in 0..<rounds {
                let changes = watched.changes()
                let writers = try (0..<3).map { _ in
                    try RunningScenes(["stress", "--scene", "s", "--count", "0", "--payload", "4096"], root: fixture.root, program: .lab)
                }
                for writer in writers {
                    #expect(await writer.lines.first(within: .seconds(30)) { $0.hasPrefix("ready") } != nil)
                }
                // The kills land while they save: once this round's writers
                // were seen saving a random number of times (1 to 4), kill
                // two at random.
                let pids = Set(writers.map(\.pid))
                let saves = Int.random(in: 1...4)
                let seen = await changes.filter { change in
                    guard change.key == "counter", case .external(let writer?) = change.origin else { return false }
                    return pids.contains(writer)
                }.prefix(saves, within: .seconds(120))
                #expect(seen.count == saves, "round \(round): saw \(seen.count) of \(saves) saves before the kills")
                let victims = writers.shuffled()
                for victim in victims.prefix(2) {
                    victim.kill()
                    _ = await victim.exitStatus()
                    kills += 1
                }

                // A new writer gets the lock while the survivor keeps saving.
                let newcomer = try RunningScenes(["set", "--scene", "s", "newcomer", "--int", "\(round)"], root: fixture.root)
                let status = await newcomer.exitStatus(within: .seconds(30))
                #expect(status == 0, "round \(round): a new writer did not get the lock (status \(String(describing: status)))")

                let survivor = victims[2]
                survivor.kill()
                _ = await survivor.exitStatus()
                kills += 1

                // Nobody holds the lock now: it must be free at once.
                #expect(!HeldLock.isHeld(.scene("s"), root: fixture.root), "round \(round): the lock is still held")

                let disk = try await onDisk("s", root: fixture.root)
                #expect(!disk.recovered, "round \(round): the scene file was damaged")
                #expect(disk.values["newcomer"] == .int(round), "round \(round): the new writer's save is missing")
                if case .int(let counter)? = disk.values["counter"] {
                    #expect(disk.values["double"] == .int(counter * 2), "round \(round): a torn save")
                    #expect(disk.values["filler"] == .data(Data(repeating: UInt8(truncatingIfNeeded: counter), count: 4096)),
                            "round \(round): a torn save")
                } else {
                    Issue.record("round \(round): no counter on disk: \(disk.values.keys.sorted())")
                }
            }
            print("contention kills: \(kills) writers killed in \(rounds) rounds (2 while 3 contended, then the survivor); the scene loaded complete and the lock was free every time")
            await fixture.tearDown()
        }
    }
}
