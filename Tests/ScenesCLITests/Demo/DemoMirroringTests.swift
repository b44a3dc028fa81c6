import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

// Hang guard: its slowest test took 4 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8)))
struct DemoMirroringTests {
    @Test func commandsInOneProcessArriveInTheOtherAsExternalLines() async throws {
        let fixture = try await SceneStoreFixture()
        let (left, right) = try await twoDemoWindows(root: fixture.root)

        let commands = ["push 7", "push seven", "tab library", "open 2", "settings", "tab books", "open 4"]
        for command in commands { left.send(command) }
        let lastLocal = await left.lines.prefix(commands.count, within: .seconds(30)).last.flatMap(DemoLine.init)
        let expected = try #require(lastLocal)
        #expect(expected.stacks.mixed == [.number(7), .text("seven")])
        #expect(expected.stacks.library == [["settings": .flag(true)]])
        #expect(expected.stacks.books == ["The Dispossessed"])

        let mirrored = await right.lines.first(within: .seconds(30)) { line in
            DemoLine(line).map { $0.origin == "external" && $0.navigation == expected.navigation } ?? false
        }
        #expect(mirrored != nil, "the other process never showed \(expected.navigation)")

        right.send("quit")
        left.send("quit")
        #expect(await right.exitStatus() == 0)
        #expect(await left.exitStatus() == 0)
    }

    @Test func eachChangeReachesTheOtherProcessPromptly() async throws {
        let fixture = try await SceneStoreFixture()
        let (left, right) = try await twoDemoWindows(root: fixture.root)

        var latencies: [Duration] = []
        for value in 1...5 {
            let start = ContinuousClock.now
            left.send("push \(value)")
            let arrived = await right.lines.first(within: .seconds(30)) { line in
                DemoLine(line).map { $0.origin == "external" && $0.stacks.mixed.last == .number(value) } ?? false
            }
            #expect(arrived != nil)
            latencies.append(ContinuousClock.now - start)
            _ = await left.lines.first(within: .seconds(30))
        }
        print("scenes run mirroring latencies:", latencies.map { "\($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) ms" })
        left.send("quit")
        right.send("quit")
        _ = await left.exitStatus()
        _ = await right.exitStatus()
    }
}

/// Two headless demo windows on scene "main" of `root`, each past its first
/// state line (`show` answers once a window has its store open and watched).
/// `arguments` go to both (`--backend URL`).
func twoDemoWindows(root: URL, arguments: [String] = []) async throws -> (left: RunningScenes, right: RunningScenes) {
    let left = try RunningScenes(["run", "--scene", "main"] + arguments, root: root)
    let right = try RunningScenes(["run", "--scene", "main"] + arguments, root: root)
    left.send("show")
    right.send("show")
    #expect(await left.lines.first(within: .seconds(30)) != nil)
    #expect(await right.lines.first(within: .seconds(30)) != nil)
    return (left, right)
}
