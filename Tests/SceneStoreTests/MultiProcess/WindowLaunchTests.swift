import Foundation
import MultiProcessSupport
import SceneStore
import SceneStoreTesting
import Testing

extension MultiProcess {
    /// Launches of a multi-window app (`scenes-lab window`) as real
    /// processes: many at once never reopen one window twice; SIGKILL
    /// leaves windows to recover; SIGTERM is a quit that keeps the edit.
    // Hang guard: its slowest test took 9 s here (2 cores); 1 minute, at least 4 times that.
    @Suite(.timeLimit(.minutes(1))) struct WindowLaunchTests {
        /// A launch, started and ready to choose its window on "go".
        private struct Launch {
            let process: RunningScenes
            let log: LineLog

            init(_ place: StoragePlace, arguments: [String] = []) async throws {
                process = try RunningScenes(
                    ["window"] + arguments + place.arguments + contendedWriter, root: place.fixture.root, program: .lab)
                log = LineLog(process)
                let ready = await log.next(within: .seconds(60)) { $0 == "ready" }
                try #require(ready != nil, "\(process.errorOutput.suffix(1000))")
            }

            /// The window it chose: id and reason (relaunch, recover, new).
            func choose() async throws -> (id: String, reason: String) {
                process.send("go")
                let line = try #require(await log.next(within: .seconds(120)) { $0.hasPrefix("window ") },
                                        "\(process.errorOutput.suffix(1000))")
                let parts = line.split(separator: " ").map(String.init)
                return (parts[1], parts[2])
            }

            func quit() async {
                process.send("quit")
                #expect(await process.exitStatus() == 0, "\(process.errorOutput.suffix(1000))")
            }
        }

        private static func restorable(_ place: StoragePlace) async throws -> [SceneSession] {
            let registry = try await place.registry(.init(watcher: .none))
            defer { registry.abandon() }
            return try await registry.scenesToRestore()
        }

        /// 8 windows quit, then 10 launches at once, 5 rounds: each round
        /// the 8 windows go to 8 different launches, and 2 make new ones.
        @Test(arguments: StorageBackend.allCases)
        func tenLaunchesAtOnceNeverReopenOneWindowTwice(_ backend: StorageBackend) async throws {
            let place = try await StoragePlace.make(backend)
            // 8 launches at once on an empty root: 8 new windows, then quit.
            let makers = try await withThrowingTaskGroup(of: Launch.self) { group in
                for _ in 0..<8 { group.addTask { try await Launch(place) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var made: Set<String> = []
            for maker in makers {
                let (id, reason) = try await maker.choose()
                #expect(reason == "new")
                made.insert(id)
            }
            for maker in makers { await maker.quit() }
            let all = try await Self.restorable(place)
            #expect(made.count == 8)
            #expect(Set(all.map(\.id.rawValue)) == made)

            for round in 0..<5 {
                let launches = try await withThrowingTaskGroup(of: Launch.self) { group in
                    for _ in 0..<10 { group.addTask { try await Launch(place) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let chosen = try await withThrowingTaskGroup(of: (id: String, reason: String).self) { group in
                    for launch in launches { group.addTask { try await launch.choose() } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let reopened = chosen.filter { $0.reason == "relaunch" }.map(\.id)
                #expect(reopened.count == all.count, "round \(round): \(chosen)")
                #expect(Set(reopened).count == reopened.count, "round \(round): a window reopened twice: \(chosen)")
                #expect(chosen.filter { $0.reason == "new" }.count == 10 - all.count, "round \(round): \(chosen)")
                // Close the new ones for good, keep the others for the next round.
                for (launch, choice) in zip(launches, chosen) {
                    if choice.reason == "new" {
                        launch.process.send("close")
                        #expect(await launch.process.exitStatus() == 0)
                    } else {
                        await launch.quit()
                    }
                }
                #expect(try await Self.restorable(place).count == all.count)
            }
            await place.fixture.tearDown()
        }

        @Test(arguments: StorageBackend.allCases)
        func sigkillLeavesTheWindowToRecoverWithWhatWasSaved(_ backend: StorageBackend) async throws {
            let place = try await StoragePlace.make(backend)
            let launch = try await Launch(place, arguments: ["--title", "Notes"])
            let (id, reason) = try await launch.choose()
            #expect(reason == "new")
            launch.process.kill(SIGKILL)
            _ = await launch.process.exitStatus()

            let restorable = try await Self.restorable(place)
            #expect(restorable.map(\.id.rawValue) == [id])
            #expect(restorable.first?.state == .restorable(.recover))
            #expect(restorable.first?.title == "Notes", "the title survives the kill")

            let next = try await Launch(place)
            #expect(try await next.choose() == (id, "recover"))
            await next.quit()
            #expect(try await Self.restorable(place).first?.state == .restorable(.relaunch))
            await place.fixture.tearDown()
        }

        @Test(arguments: StorageBackend.allCases, [SIGTERM, SIGHUP])
        func aTerminatingSignalIsAQuitThatKeepsTheEdit(_ backend: StorageBackend, _ signal: Int32) async throws {
            let place = try await StoragePlace.make(backend)
            let launch = try await Launch(place, arguments: ["--set", "edits=7"])
            let (id, _) = try await launch.choose()
            launch.process.kill(signal)
            #expect(await launch.process.exitStatus() == 0, "\(launch.process.errorOutput.suffix(1000))")

            let restorable = try await Self.restorable(place)
            #expect(restorable.map(\.id.rawValue) == [id])
            #expect(restorable.first?.state == .restorable(.relaunch))
            let stored = try await place.registry(.init(watcher: .none))
            #expect(try await stored.store(for: SceneID(id)).value(forKey: "edits", as: Int.self) == 7, "set right before the signal")
            stored.abandon()
            await place.fixture.tearDown()
        }

        /// A launch holds a window and a cleaner deletes every side file
        /// (`rm -f .*~*`: quit marks, tombstones; a claim is a byte of the
        /// root's lock file, which no such pattern names): a second launch
        /// makes a new window, the held one is never offered, and the first
        /// still holds it. 5 rounds, on files (PostgreSQL's claims are not
        /// files).
        @Test func deletedSideFilesLetNoSecondLaunchIntoAHeldWindow() async throws {
            let place = try await StoragePlace.make(.files)
            for round in 0..<5 {
                let first = try await Launch(place)
                let (held, _) = try await first.choose()
                let root = place.fixture.root.path
                let sideFiles = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix(".") && $0.contains("~") }
                for file in sideFiles { try? FileManager.default.removeItem(atPath: root + "/" + file) }

                #expect(try await !Self.restorable(place).map(\.id.rawValue).contains(held), "round \(round): offered while held")
                let second = try await Launch(place)
                let (chosen, reason) = try await second.choose()
                #expect(chosen != held, "round \(round): two launches share window \(held) (\(reason))")
                await second.quit()
                await first.quit()
            }
            await place.fixture.tearDown()
        }
    }
}
