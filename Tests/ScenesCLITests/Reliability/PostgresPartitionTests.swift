#if Postgres
import Foundation
import MultiProcessSupport
import SceneStore
import SceneStoreTesting
import Testing

/// A network partition between hosts: the server on one host (a network
/// namespace), two client hosts, each running real `scenes` processes (a
/// `watch` and one `set` per write) over its own link, and the links cut
/// and healed in turn while both sides write. No acknowledged write is
/// lost; a write on the cut side fails with "unavailable" (exit 69) within
/// its timeout instead of hanging; after the heal each watcher catches up
/// with what the other side wrote meanwhile, and both sides read the same.
// Hang guard: its slowest test took 52 s in its layer here, 180 s in the whole suite (every test at once on 2 cores); 5 minutes.
@Suite(
    .enabled(if: TemporaryPostgresServer.isAvailable, "PostgreSQL is not installed (.ci/deps --test installs it)"),
    .enabled(if: PartitionedNetwork.isAvailable, "network namespaces need root and iproute2 (ip): not run here"),
    .timeLimit(.minutes(5)))
struct PostgresPartitionTests {
    @Test func writesOnBothSidesOfACutLinkAreKeptAndTheSidesConverge() async throws {
        try await withServer { network, urls in try await run(on: network, urls: urls) }
    }

    /// Runs `body` with a server on `network`'s server host and a
    /// database URL for each client host, on a network of its own.
    private func withServer(
        _ body: (PartitionedNetwork, _ urls: [String]) async throws -> Void
    ) async throws {
        let network = try await PartitionedNetwork.make(clients: 2)
        do {
            let server = try await blockingWork {
                try TemporaryPostgresServer.start(in: .init(
                    namespace: network.server, addresses: [0, 1].map(network.serverAddress(for:)), clients: "10.77.0.0/16"))
            }
            defer { server.destroy() }
            let name = try #require(URL(string: try await blockingWork { try server.createDatabase() })).lastPathComponent
            try await body(network, [0, 1].map {
                server.url(database: name, address: network.serverAddress(for: $0)) + "?connect_timeout=3"
            })
        } catch {
            await network.remove()
            throw error
        }
        await network.remove()
    }

    /// What `scenes show --json` on client `client`'s host reads, as Ints.
    private func stored(_ scene: String, on client: Int, of network: PartitionedNetwork, url: String, root: URL) async throws -> [String: Int] {
        let shown = try await scenes(
            network.onClient(client, ["show", "--json", "--backend", url, "--scene", scene]), root: root, program: .shell)
        try #require(shown.status == 0, "\(shown.stderr)")
        return try JSONDecoder().decode(ShownScene.self, from: Data(shown.stdout.utf8)).values.compactMapValues { value in
            if case .int(let number) = value { return number }
            return nil
        }
    }

    /// Follows `scenes watch --json` on client `client`'s host: the
    /// latest value it printed for each key.
    private func follow(
        _ scene: String, on client: Int, of network: PartitionedNetwork, url: String, root: URL
    ) async throws -> (RunningScenes, Locked<[String: Int]>, Task<Void, Never>) {
        let watcher = try RunningScenes(
            network.onClient(client, ["watch", "--json", "--backend", url, "--scene", scene]), root: root, program: .shell)
        let ready = await watcher.lines.first(within: .seconds(60)) { $0.contains(#""event":"ready""#) }
        try #require(ready != nil, "watcher \(client): \(watcher.errorOutput)")
        let view = Locked<[String: Int]>([:])
        let follower = Task {
            for await line in watcher.lines {
                guard let change = try? JSONDecoder().decode(WatchedChange.self, from: Data(line.utf8)),
                      change.event == "changed", let key = change.key, case .int(let value)? = change.new else { continue }
                view.withLock { $0[key] = value }
            }
        }
        return (watcher, view, follower)
    }

    /// Waits until `view` holds `expected`'s value for each of its keys.
    private func converged(_ view: Locked<[String: Int]>, to expected: [String: Int]) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(120)
        func missing() -> [String] {
            let seen = view.withLock { $0 }
            return expected.filter { seen[$0.key] != $0.value }.keys.sorted()
        }
        while !missing().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        return missing()
    }

    private func run(on network: PartitionedNetwork, urls: [String]) async throws {
        let fixture = try await SceneStoreFixture()

        var watchers: [RunningScenes] = []
        var views: [Locked<[String: Int]>] = []
        var followers: [Task<Void, Never>] = []
        for client in [0, 1] {
            let (watcher, view, follower) = try await follow("p", on: client, of: network, url: urls[client], root: fixture.root)
            watchers.append(watcher)
            views.append(view)
            followers.append(follower)
        }
        defer {
            for watcher in watchers { watcher.kill() }
            for follower in followers { follower.cancel() }
        }

        var acknowledged: [String: Int] = [:]
        var refusals: [Duration] = []
        var next = 0
        /// One `scenes set` on `client`'s host; counted when it exited 0.
        func write(_ client: Int, _ key: String) async throws -> ScenesResult {
            next += 1
            let result = try await scenes(
                network.onClient(client, ["set", "--backend", urls[client], "--scene", "p", key, "--int", "\(next)"]),
                root: fixture.root, program: .shell)
            if result.status == 0 { acknowledged[key] = next }
            return result
        }

        for (round, cutSide) in [0, 1, 0, 1].enumerated() {
            let other = 1 - cutSide
            for index in 0..<3 {
                for client in [0, 1] {
                    let result = try await write(client, "r\(round)-before-\(client)-\(index)")
                    #expect(result.status == 0, "\(result.stderr)")
                }
            }
            try await network.cut(cutSide)
            for index in 0..<2 {
                let started = ContinuousClock.now
                let cut = try await write(cutSide, "r\(round)-cut-\(cutSide)-\(index)")
                if cut.status != 0 {
                    refusals.append(ContinuousClock.now - started)
                    #expect(cut.status == 69, "a write across the cut: \(cut.stderr)")
                    #expect(cut.stderr.contains("unavailable"), "\(cut.stderr)")
                }
                let result = try await write(other, "r\(round)-during-\(other)-\(index)")
                #expect(result.status == 0, "the side still connected: \(result.stderr)")
            }
            try await network.heal(cutSide)
            for index in 0..<3 {
                for client in [cutSide, other] {
                    // Right after the heal a connect may still meet the cut:
                    // retried, and only a write that exited 0 counts.
                    var result = try await write(client, "r\(round)-after-\(client)-\(index)")
                    for _ in 0..<10 where result.status != 0 {
                        try await Task.sleep(for: .milliseconds(200))
                        result = try await write(client, "r\(round)-after-\(client)-\(index)")
                    }
                    #expect(result.status == 0, "after the heal: \(result.stderr)")
                }
            }
        }

        // Every acknowledged write is stored, read from either host, and
        // each watcher converges to them: it caught up after its cut.
        for client in [0, 1] {
            let stored = try await stored("p", on: client, of: network, url: urls[client], root: fixture.root)
            let lost = acknowledged.filter { stored[$0.key] != $0.value }
            #expect(lost.isEmpty, "host \(client) lost \(lost.count) acknowledged writes: \(lost.keys.sorted())")
            let missing = try await converged(views[client], to: acknowledged)
            #expect(missing.isEmpty, "watcher \(client) never saw \(missing)")
        }
        #expect(refusals.count >= 4, "writes across a cut that were refused: \(refusals.count) of 8")
        #expect(refusals.allSatisfy { $0 < .seconds(60) }, "a refusal took \(refusals.max() ?? .zero)")
        print("partition: 4 cuts, \(acknowledged.count) acknowledged writes, 0 lost; \(refusals.count) of 8 writes across a cut refused (exit 69) after \(refusals.min() ?? .zero)-\(refusals.max() ?? .zero)")
    }
}

extension PostgresPartitionTests {
    /// A writer process that holds its connection (`scenes-lab stress
    /// --report`, a write every 20 ms) while the link of its host is cut:
    /// its flushes fail with "unavailable" within the request timeout, its
    /// connection found dead and replaced; after the heal its flushes
    /// succeed again, the writes that failed meanwhile included, and a
    /// watcher on the other host sees everything acknowledged.
    @Test func aWriterHoldingItsConnectionFailsWithinItsTimeoutAndResumesAfterTheHeal() async throws {
        try await withServer { network, urls in
            let fixture = try await SceneStoreFixture()
            let (watcher, view, follower) = try await follow("q", on: 1, of: network, url: urls[1], root: fixture.root)
            defer {
                watcher.kill()
                follower.cancel()
            }
            let writer = try RunningScenes(
                network.onClient(0, ["stress", "--backend", urls[0], "--scene", "q", "--prefix", "w", "--count", "0",
                                     "--report", "--pause", "20"], program: .lab),
                root: fixture.root, program: .shell)
            let log = Locked<(acknowledged: [String: Int], failures: [Int])>(([:], []))
            let reader = Task {
                for await line in writer.lines {
                    let fields = line.split(separator: " ", maxSplits: 3)
                    guard fields.count >= 3, let value = Int(fields[1].dropFirst()), let milliseconds = Int(fields[2]) else { continue }
                    if fields[0] == "ack" { log.withLock { $0.acknowledged[String(fields[1])] = value } }
                    if fields[0] == "failed" { log.withLock { $0.failures.append(milliseconds) } }
                }
            }
            func waitFor(_ condition: @escaping ((acknowledged: [String: Int], failures: [Int])) -> Bool) async throws -> Bool {
                let deadline = ContinuousClock.now + .seconds(120)
                while !log.withLock({ condition($0) }), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                return log.withLock { condition($0) }
            }

            #expect(try await waitFor { $0.acknowledged.count >= 20 }, "\(writer.errorOutput)")
            try await network.cut(0)
            #expect(try await waitFor { $0.failures.count >= 3 }, "no failed flush while cut: \(writer.errorOutput)")
            try await network.heal(0)
            let beforeHeal = log.withLock { $0.acknowledged.count }
            #expect(try await waitFor { $0.acknowledged.count >= beforeHeal + 20 }, "no write after the heal: \(writer.errorOutput)")
            writer.kill()
            _ = await writer.exitStatus()
            _ = await reader.value

            let (acknowledged, failures) = log.withLock { ($0.acknowledged, $0.failures) }
            let stored = try await stored("q", on: 1, of: network, url: urls[1], root: fixture.root)
            let lost = acknowledged.filter { stored[$0.key] != $0.value }
            #expect(lost.isEmpty, "lost \(lost.count) acknowledged writes: \(lost.keys.sorted())")
            let missing = try await converged(view, to: acknowledged)
            #expect(missing.isEmpty, "the watcher never saw \(missing)")
            #expect(failures.allSatisfy { $0 < 60_000 }, "a failed flush took \(failures.max() ?? 0) ms")
            print("partition, writer holding its connection: \(acknowledged.count) acknowledged writes, 0 lost; \(failures.count) flushes failed across the cut after \(failures.min() ?? 0)-\(failures.max() ?? 0) ms")
        }
    }
}

/// A line of `scenes watch --json`.
private struct WatchedChange: Decodable {
    let event: String
    let key: String?
    let new: SceneValue?
}

/// `scenes show --json`.
private struct ShownScene: Decodable {
    let values: [String: SceneValue]
}
#endif
