import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension MultiProcess {
    /// A registry whose open root is deleted or moved away, and created
    /// again by another process's save, still hears that process's writes
    /// to every open scene, and says how it watches.
    @Suite struct RootLossTests {
        static let sceneIDs = (0..<8).map { "open-\($0)" }

        /// One `probe follow` keeps 8 scenes open (it holds its root open,
        /// its mark, so the kernel reports no `IN_DELETE_SELF`); each round
        /// deletes the root (`rm -rf`), then `scenes set` processes create
        /// it again and write every scene.
        // Hang guard: 10 rounds took about 3 s here (2 cores); 3 minutes.
        @Test(.timeLimit(.minutes(3)))
        func deletedOpenRootIsWatchedAgain() async throws {
            let fixture = try await SceneStoreFixture()
            let (follower, log) = try await Self.follow(root: fixture.root, program: .lab, Self.followArguments)
            let heard = await Self.rounds(10, follower: follower, log: log, root: fixture.root, expecting: "inotify") {
                // Stopped while rm runs: each scene file rm unlinks is an
                // event the follower answers by writing the scene back
                // from memory (it never saw a discard), into the root rm is
                // emptying, and rm's rmdir would then fail. It hears the
                // whole deletion once it runs on.
                await follower.stop()
                defer { kill(follower.pid, SIGCONT) }
                let removed = try await MultiProcessSupport.scenes(
                    ["-c", "rm -rf \"$SCENES_ROOT\" && [ ! -e \"$SCENES_ROOT\" ]"], root: fixture.root, program: .shell)
                if removed.status != 0 { Issue.record("rm -rf: \(removed.stderr)") }
            }
            #expect(heard)
            follower.closeInput()
            #expect(await follower.exitStatus(within: .seconds(30)) == 0)
            await fixture.tearDown()
        }

        /// The same with the root moved away while the follower cannot add
        /// a single inotify watch more (its own user namespace's
        /// `max_inotify_watches` set to 0 once it runs): watching the new
        /// root fails with ENOSPC, so the follower polls, logs it and says
        /// so.
        // Hang guard: 10 rounds took about 6 s here (2 cores); 3 minutes.
        @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
                       "a user namespace of its own (unshare, nsenter) needs root"),
              .timeLimit(.minutes(3)))
        func rootMovedAwayWithTheWatchLimitUsedUpIsPolled() async throws {
            let fixture = try await SceneStoreFixture()
            let command = "exec unshare --user --map-root-user \"$SCENES_LAB\" "
                + Self.followArguments.map { "'\($0)'" }.joined(separator: " ")
            let (follower, log) = try await Self.follow(root: fixture.root, program: .shell, ["-c", command])
            let limit = try await MultiProcessSupport.scenes(
                ["-c", "nsenter --user --target \(follower.pid) sh -c 'echo 0 > /proc/sys/user/max_inotify_watches'"],
                root: fixture.root, program: .shell)
            #expect(limit.status == 0, "\(limit.stderr)")
            var round = 0
            let polling = WatcherKind.polling(interval: .milliseconds(250)).description
            let heard = await Self.rounds(10, follower: follower, log: log, root: fixture.root, expecting: polling) {
                round += 1
                try FileManager.default.moveItem(
                    at: fixture.root, to: fixture.root.deletingLastPathComponent().appendingPathComponent("moved-\(round)"))
            }
            #expect(heard)
            follower.closeInput()
            #expect(await follower.exitStatus(within: .seconds(30)) == 0)
            await fixture.tearDown()
        }

        static let followArguments = ["probe", "follow"] + sceneIDs.flatMap { ["--scene", $0] }

        /// Writes every scene once, then starts the follower.
        static func follow(
            root: URL, program: ScenesProgram, _ arguments: [String]
        ) async throws -> (RunningScenes, LineLog) {
            #expect(try await write(round: 0, root: root))
            let follower = try RunningScenes(arguments, root: root, program: program)
            let log = LineLog(follower)
            let ready = try #require(await log.next { $0.hasPrefix("ready") })
            #expect(ready.hasSuffix("inotify"))
            return (follower, log)
        }

        /// Runs `count` rounds of `lose` (the root goes), then a write of
        /// the round's number to every scene by other processes; whether
        /// the follower heard every write, and said `watcher` once the
        /// first round was heard.
        static func rounds(
            _ count: Int, follower: RunningScenes, log: LineLog, root: URL, expecting watcher: String,
            lose: () async throws -> Void
        ) async -> Bool {
            for round in 1...count {
                // Only what the follower prints from now on counts.
                _ = await log.next(within: .zero) { _ in false }
                let start = log.lines.count
                do {
                    try await lose()
                    guard try await write(round: round, root: root) else { return false }
                } catch {
                    Issue.record("round \(round): \(error)")
                    return false
                }
                // The follower's stores write their values again once they
                // find their files gone, but only what the file they then
                // find lacks: the writer's value of the round, acknowledged
                // before, is never written over by the older one they held
                // (before, in about 1 of 8 rounds, it was). So each scene
                // must end with the round's value, in the follower and on
                // disk.
                let deadline = ContinuousClock.now + .seconds(20)
                var heard: Set<String> = []
                var kinds: Set<String> = []
                var missed: [String] = []
                for scene in sceneIDs {
                    if let line = await followed(scene, round: round, log: log, follower: follower, since: start, root: root, until: deadline) {
                        heard.insert(scene)
                        kinds.insert(line.watcher)
                    } else {
                        let disk = await (try? onDisk(scene, root: root)).map { "\($0.values) at \($0.generation)" } ?? "unreadable"
                        let last = log.lines.last { decodeJSON(Dump.self, from: $0)?.scene == scene } ?? "nothing"
                        missed.append("\(scene): on disk \(disk), last followed \(last)")
                    }
                }
                print("root lost, round \(round): \(heard.count) of \(sceneIDs.count) open scenes ended with the other process's write, in memory and on disk; watcher \(kinds.sorted())")
                guard heard.count == sceneIDs.count else {
                    Issue.record("round \(round): \(heard.count) of \(sceneIDs.count) open scenes ended with the round's value; \(missed); the follower's log: \(follower.errorOutput.suffix(4000))")
                    return false
                }
                #expect(kinds == [watcher], "round \(round)")
            }
            return true
        }

        /// The follower's line that shows `scene` with `round` alone, printed
        /// since line `start` or by `deadline`, while the disk holds it too
        /// (`nil` as soon as it does not). The follower is asked to print
        /// its scenes again (`dump`) every second: a store already equal to
        /// the disk prints nothing by itself (its own save prints no line),
        /// and the disk is read again each time, as the follower's own save
        /// may still move it on.
        static func followed(
            _ scene: String, round: Int, log: LineLog, follower: RunningScenes, since start: Int, root: URL,
            until deadline: ContinuousClock.Instant
        ) async -> Dump? {
            let expected: [String: SceneValue] = ["round": .int(round)]
            while true {
                guard let stored = try? await onDisk(scene, root: root), stored.values == expected else { return nil }
                let matches = { (line: Dump) in line.scene == scene && line.values == expected }
                if let seen = log.lines.dropFirst(start).lazy.compactMap({ decodeJSON(Dump.self, from: $0) }).first(where: matches) {
                    return seen
                }
                follower.send("dump")
                if let seen = await log.next(Dump.self, within: .seconds(1), where: matches) { return seen }
                if ContinuousClock.now >= deadline { return nil }
            }
        }

        /// `scenes set` of `round` in every scene, one process each (the
        /// first creates the root again).
        static func write(round: Int, root: URL) async throws -> Bool {
            let loop = "for scene in \(sceneIDs.joined(separator: " ")); do \"$SCENES\" set --scene $scene round --int \(round) || exit 1; done"
            let result = try await MultiProcessSupport.scenes(["-c", loop], root: root, program: .shell)
            if result.status != 0 { Issue.record("writing round \(round): \(result.stderr)") }
            return result.status == 0
        }

        /// A line of `probe follow`.
        struct Dump: Decodable {
            let scene: String
            let generation: UInt64
            let values: [String: SceneValue]
            let watcher: String
        }
    }
}
