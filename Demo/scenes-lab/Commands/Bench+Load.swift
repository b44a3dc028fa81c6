import ArgumentParser
import Foundation
import SceneStore
import SceneStoreTesting
import ScenesCLIKit
#if Postgres
import PostgresNIO
import SceneStorePostgres
#endif

extension Bench {
    /// Many writers over many scenes on PostgreSQL: writer processes of
    /// many tasks each commit to random scenes while a watcher process
    /// follows every scene, on a temporary server with `fsync` on, first
    /// through SceneStore, then through the floor (per task a connection
    /// and one upsert + NOTIFY statement per commit, a `LISTEN` watcher).
    /// Reports commits per second, commit and propagation p50/p99, the
    /// most connections the server held, and checks afterwards that every
    /// acknowledged write is stored.
    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Many writers over many scenes on PostgreSQL, next to raw one-statement commits.")

        @Option(help: "Writer processes.") var processes = 2
        @Option(help: "Committing tasks per writer process.") var tasks = 16
        @Option(help: "Scenes, each written at random.") var scenes = 1000
        @Option(help: "Seconds of writing per mode.") var seconds = 60.0
        @Flag(help: "A smoke test: 2 x 2 tasks over 20 scenes for 2 s.") var quick = false

        struct Row: Encodable {
            var mode: String
            var commits: Int
            var commitsPerSecond: Double
            var commit: Summary
            var propagation: Summary?
            /// Changes the watcher received over commits acknowledged.
            var received: Double
            var failures: Int
            var maxConnections: Int
            /// Acknowledged writes not found in the stored state afterwards.
            var lost: Int
        }

        func run() async throws {
            #if Postgres
            let (tasks, scenes, seconds) = quick ? (2, 20, 2.0) : (self.tasks, self.scenes, self.seconds)
            let server = try TemporaryPostgresServer.start(durable: true)
            defer { server.destroy() }
            var rows: [Row] = []
            for mode in LoadPeer.Mode.allCases {
                rows.append(try await measure(mode, on: server, tasks: tasks, scenes: scenes, seconds: seconds))
            }
            emit("load: \(processes) writer processes x \(tasks) tasks over \(scenes) scenes, \(seconds) s per mode, a watcher on every scene")
            emit("mode     commits/s   commit p50   commit p99     prop. p50    prop. p99   received  conns  failed  lost")
            for row in rows {
                let propagation = row.propagation.map { [$0.p50Ms, $0.p99Ms] } ?? [.nan, .nan]
                emit(row.mode.padding(toLength: 6, withPad: " ", startingAt: 0)
                     + String(format: "%12.0f", row.commitsPerSecond)
                     + ([row.commit.p50Ms, row.commit.p99Ms] + propagation).map { String(format: "%10.3f ms", $0).leftPadded(to: 13) }.joined()
                     + String(format: "%10.1f%%%7d%8d%6d", row.received * 100, row.maxConnections, row.failures, row.lost))
            }
            if rows.count == 2 {
                emit(String(format: "store/raw: commits/s %.2fx, commit p50 %.2fx, propagation p50 %.2fx",
                            rows[0].commitsPerSecond / rows[1].commitsPerSecond, rows[0].commit.p50Ms / rows[1].commit.p50Ms,
                            (rows[0].propagation?.p50Ms ?? .nan) / (rows[1].propagation?.p50Ms ?? .nan)))
            }
            emit(try jsonLine(rows))
            #else
            emit("load: not built (swift run -c release --traits Postgres scenes-lab bench load)")
            #endif
        }

        #if Postgres
        private func measure(
            _ mode: LoadPeer.Mode, on server: TemporaryPostgresServer, tasks: Int, scenes: Int, seconds: Double
        ) async throws -> Row {
            let url = try server.createDatabase()
            let admin = try await LoadPeer.connect(url)
            do {
                let row = try await measure(mode, url: url, admin: admin, tasks: tasks, scenes: scenes, seconds: seconds)
                try? await admin.close()
                return row
            } catch {
                try? await admin.close()
                throw error
            }
        }

        private func measure(
            _ mode: LoadPeer.Mode, url: String, admin: PostgresConnection, tasks: Int, scenes: Int, seconds: Double
        ) async throws -> Row {
            if mode == .raw {
                _ = try await admin.query(
                    "CREATE TABLE load_raw (scene text, key text, value bigint, PRIMARY KEY (scene, key))", logger: Self.logger)
            }
            func peer(_ role: LoadPeer.Role, seconds: Double) throws -> PeerProcess {
                try PeerProcess(["bench", "load-peer", "--role", role.rawValue, "--mode", mode.rawValue, "--url", url,
                                 "--scenes", "\(scenes)", "--tasks", "\(tasks)", "--seconds", "\(seconds)"])
            }
            // The watcher follows until told, after the writers' last commits.
            let watcher = try peer(.watcher, seconds: seconds)
            defer { watcher.stop() }
            guard watcher.readLine(timeout: .seconds(120))?.hasPrefix("ready") == true else { throw failure("the watcher did not start") }
            let writers = try (0..<processes).map { _ in try peer(.writer, seconds: seconds) }
            defer { for writer in writers { writer.stop() } }
            for writer in writers where writer.readLine(timeout: .seconds(120))?.hasPrefix("ready") != true {
                throw failure("a writer did not start")
            }
            let started = ContinuousClock.now
            var maxConnections = 0
            while ContinuousClock.now - started < .seconds(seconds) {
                maxConnections = max(maxConnections, try await connectionCount(admin))
                try await Task.sleep(for: .milliseconds(500))
            }
            var total = LoadPeer.WriterResult()
            for writer in writers {
                guard let line = writer.readLine(timeout: .seconds(seconds + 120)), line.hasPrefix("result ") else {
                    throw failure("a writer did not report")
                }
                total.add(try JSONDecoder().decode(LoadPeer.WriterResult.self, from: Data(line.dropFirst(7).utf8)))
            }
            // Notifications of the last commits still on their way.
            try await Task.sleep(for: .seconds(2))
            watcher.closeInput()
            guard let line = watcher.readLine(timeout: .seconds(120)), line.hasPrefix("result ") else {
                throw failure("the watcher did not report")
            }
            let watched = try JSONDecoder().decode(LoadPeer.WatcherResult.self, from: Data(line.dropFirst(7).utf8))
            let stored = try await storedValues(mode, url: url, admin: admin, scenes: scenes)
            let lost = total.acknowledged.filter { (stored[$0.key] ?? .min) < $0.value }.count
            let commits = total.commitNanoseconds.count
            return Row(
                mode: mode.rawValue, commits: commits, commitsPerSecond: Double(commits) / seconds,
                commit: Summary(nanoseconds: total.commitNanoseconds.isEmpty ? [0] : total.commitNanoseconds),
                propagation: watched.propagationNanoseconds.isEmpty ? nil : Summary(nanoseconds: watched.propagationNanoseconds),
                received: Double(watched.propagationNanoseconds.count) / Double(max(commits, 1)),
                failures: total.failures, maxConnections: maxConnections, lost: lost)
        }

        /// "scene key" -> value, as stored now.
        private func storedValues(
            _ mode: LoadPeer.Mode, url: String, admin: PostgresConnection, scenes: Int
        ) async throws -> [String: Int] {
            var stored: [String: Int] = [:]
            switch mode {
            case .raw:
                let rows = try await admin.query("SELECT scene, key, value FROM load_raw", logger: Self.logger)
                for try await (scene, key, value) in rows.decode((String, String, Int).self) { stored["\(scene) \(key)"] = value }
            case .store:
                let registry = try await SceneRegistry(postgres: url, appID: "load", configuration: .init(watcher: .none))
                for index in 0..<scenes {
                    for (key, value) in try await registry.store(for: "s\(index)").snapshot {
                        if case .int(let number) = value { stored["s\(index) \(key)"] = number }
                    }
                }
                try await registry.close()
            }
            return stored
        }

        /// Client connections to the server now, this one left out.
        private func connectionCount(_ admin: PostgresConnection) async throws -> Int {
            let rows = try await admin.query(
                "SELECT count(*)::int8 FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
                logger: Self.logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }

        static let logger = LoadPeer.logger
        #endif
    }
}
