import ArgumentParser
import Foundation
import SceneStore
#if Postgres
import PostgresNIO
import SceneStorePostgres
#endif
import SceneStoreTesting
import ScenesCLIKit

extension Bench {
    /// The two storages side by side, measured the same way in one run: a
    /// durable commit (`set` + `flush`) and its propagation to another
    /// registry (the change event there), on the file root and on
    /// PostgreSQL on loopback (a temporary server this command starts, with
    /// `fsync` on as in production, unless `--database` names one); and
    /// PostgreSQL's floor: one autocommitted statement per commit, an
    /// upsert of the scene's own document (the bytes the file storage
    /// wrote) and a `NOTIFY` of a stamp (one round trip), received by a
    /// plain `LISTEN` connection that then reads the row, as a SceneStore
    /// watcher does (a notification is a hint, never a value).
    struct Backends: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Commit and propagation p50/p99: the file root next to PostgreSQL on loopback.")

        @Option(help: "Commits per backend and run.") var commits = 300
        @Option(help: "Runs; each measures both backends.") var runs = 3
        @Option(help: "Keys in the scene (each commit changes one).") var keys = 100
        @Option(help: "An existing database to use (postgres://...) instead of a temporary server.")
        var database: String?
        @Flag(help: "A smoke test: few commits, one run.") var quick = false
        @Flag(help: "PostgreSQL's floor with filler bytes (which compress to almost nothing) instead of the scene's own document.")
        var fillerFloor = false
        @Option(help: "The writer's save policy: onFlush (it saves when flushed) or default (the coalescing policy apps run; each commit is a set and a flush inside its window).")
        var policy: CommitPolicy = .onFlush

        struct Row: Encodable {
            var backend: String
            var commit: Summary
            var propagation: Summary
        }

        func run() async throws {
            let commits = quick ? 20 : self.commits
            let runs = quick ? 1 : self.runs
            let scratch = try makeTemporaryDirectory("backends")
            defer { try? FileManager.default.removeItem(at: scratch) }
            var samples: [String: (commit: [Int], propagation: [Int])] = [:]
            #if Postgres
            let server = database == nil ? try TemporaryPostgresServer.start(durable: true) : nil
            defer { server?.destroy() }
            #endif
            for run in 0..<runs {
                let root = scratch.appendingPathComponent("files-\(run)")
                let files = try await measure(commits: commits) { configuration in
                    try await SceneRegistry(root: root, configuration: configuration)
                }
                samples["files", default: ([], [])].commit += files.commit
                samples["files", default: ([], [])].propagation += files.propagation
                #if Postgres
                let url = try database ?? (server?.createDatabase() ?? "")
                let postgres = try await measure(commits: commits) { configuration in
                    try await SceneRegistry(postgres: url, appID: "bench-\(run)", configuration: configuration)
                }
                samples["postgres", default: ([], [])].commit += postgres.commit
                samples["postgres", default: ([], [])].propagation += postgres.propagation
                // The scene whole (format 1), from the file root's log of the
                // same saves: what the floor's one statement writes each time.
                let file = try SceneFile.decode(Data(contentsOf: root.appendingPathComponent("\(Bench.sceneName).scene"))).get()
                let stored = fillerFloor ? nil : file.encoded()
                let size = file.encoded().count
                let raw = try await measureRaw(url: url, commits: commits, documentSize: size, document: stored)
                samples["postgres-raw", default: ([], [])].commit += raw.commit
                samples["postgres-raw", default: ([], [])].propagation += raw.propagation
                #endif
            }
            let rows = ["files", "postgres", "postgres-raw"].compactMap { name in
                samples[name].map { Row(backend: name, commit: Summary(nanoseconds: $0.commit), propagation: Summary(nanoseconds: $0.propagation)) }
            }
            emit("storages: \(keys)-key scene, \(commits) commits x \(runs) run(s), save policy \(policy.rawValue); propagation = commit in one registry until another's change event")
            emit("backend        commit p50   commit p99     prop. p50    prop. p99")
            for row in rows {
                emit(row.backend.padding(toLength: 13, withPad: " ", startingAt: 0)
                     + [row.commit.p50Ms, row.commit.p99Ms, row.propagation.p50Ms, row.propagation.p99Ms]
                        .map { String(format: "%10.3f ms", $0).leftPadded(to: 13) }.joined())
            }
            if let postgres = rows.first(where: { $0.backend == "postgres" }), let raw = rows.first(where: { $0.backend == "postgres-raw" }) {
                emit(String(format: "postgres / its floor: commit p50 %.2fx, propagation p50 %.2fx",
                            postgres.commit.p50Ms / raw.commit.p50Ms, postgres.propagation.p50Ms / raw.propagation.p50Ms))
            }
            #if !Postgres
            emit("  postgres: not built (swift run --traits Postgres scenes-lab bench backends)")
            #endif
            emit(try jsonLine(rows))
        }

        /// Commits on one registry, each timed until durable and until a
        /// second registry on the same storage reports it.
        private func measure(
            commits: Int, open: (SceneRegistry.Configuration) async throws -> SceneRegistry
        ) async throws -> (commit: [Int], propagation: [Int]) {
            let writer = try await open(.init(savePolicy: policy.savePolicy, watcher: .none))
            let reader = try await open(.init(savePolicy: .onFlush, watcher: .automatic))
            let store = try await writer.store(for: Bench.sceneName)
            for key in 0..<keys { try store.set(0, forKey: "k\(key)") }
            try await store.flush()
            let follower = try await reader.store(for: Bench.sceneName)
            let changes = follower.changes()
            var commitTimes: [Int] = []
            var propagationTimes: [Int] = []
            for index in 0..<(commits + 5) {
                let stamp = monotonicNanoseconds()
                try store.set(stamp, forKey: "k\(index % keys)")
                try await store.flush()
                let durable = monotonicNanoseconds()
                let arrived = await changes.first(within: .seconds(10)) { $0.newValue == .int(stamp) }
                guard arrived != nil else { throw failure("a commit never reached the other registry") }
                if index >= 5 {
                    commitTimes.append(durable - stamp)
                    propagationTimes.append(monotonicNanoseconds() - stamp)
                }
            }
            try await writer.close()
            try await reader.close()
            return (commitTimes, propagationTimes)
        }

        #if Postgres
        /// PostgreSQL's floor: per commit one autocommitted statement,
        /// prepared once (as SceneStore's save is), an upsert of `stored`
        /// (without it, of `documentSize` filler bytes) and a `NOTIFY` of
        /// a stamp, timed until it returned and until a `LISTEN`
        /// connection received it and read the row on a connection of its
        /// own, as a SceneStore watcher does.
        private func measureRaw(url: String, commits: Int, documentSize: Int, document stored: Data?) async throws -> (commit: [Int], propagation: [Int]) {
            let writer = try await LoadPeer.connect(url)
            var others: [PostgresConnection] = []
            do {
                for _ in 0..<2 { others.append(try await LoadPeer.connect(url)) }
                return try await measureRaw(
                    writer: writer, listener: others[0], reader: others[1], commits: commits, documentSize: documentSize,
                    document: stored)
            } catch {
                // Closed on every path: a connection dropped unclosed traps
                // (in debug builds) before the error is told.
                for connection in [writer] + others { try? await connection.close() }
                throw error
            }
        }

        private func measureRaw(
            writer: PostgresConnection, listener: PostgresConnection, reader: PostgresConnection, commits: Int,
            documentSize: Int, document stored: Data?
        ) async throws -> (commit: [Int], propagation: [Int]) {
            let (arrivals, arrived) = AsyncStream.makeStream(of: Int.self)
            defer { arrived.finish() }
            listener.addListener(channel: "scenestore_bench_raw") { _, notification in
                if let stamp = Int(notification.payload) { arrived.yield(stamp) }
            }
            _ = try await listener.query(PostgresQuery(unsafeSQL: "LISTEN scenestore_bench_raw"), logger: LoadPeer.logger)
            _ = try await writer.query(
                "CREATE TABLE IF NOT EXISTS bench_raw (scene text PRIMARY KEY, document bytea NOT NULL)", logger: LoadPeer.logger)
            let document = stored.map { ByteBuffer(bytes: $0) } ?? ByteBuffer(repeating: UInt8(ascii: "x"), count: documentSize)
            var commitTimes: [Int] = []
            var propagationTimes: [Int] = []
            for index in 0..<(commits + 5) {
                let stamp = monotonicNanoseconds()
                for try await _ in try await writer.execute(
                    FloorStatement(document: document, payload: String(stamp)), logger: LoadPeer.logger) {}
                let durable = monotonicNanoseconds()
                guard await arrivals.first(within: .seconds(10), where: { $0 == stamp }) != nil else {
                    throw failure("a raw commit's notification never arrived")
                }
                for try await _ in try await reader.query(
                    "SELECT document FROM bench_raw WHERE scene = 'bench'", logger: LoadPeer.logger) {}
                if index >= 5 {
                    commitTimes.append(durable - stamp)
                    propagationTimes.append(monotonicNanoseconds() - stamp)
                }
            }
            for connection in [writer, listener, reader] { try await connection.close() }
            return (commitTimes, propagationTimes)
        }
        #endif
    }
}

#if Postgres
/// The floor's statement: an upsert and its notification, prepared once.
private struct FloorStatement: PostgresPreparedStatement {
    static let sql = """
        WITH written AS (
            INSERT INTO bench_raw (scene, document) VALUES ('bench', $1)
            ON CONFLICT (scene) DO UPDATE SET document = EXCLUDED.document RETURNING 1)
        SELECT pg_notify('scenestore_bench_raw', $2) FROM written
        """
    static let bindingDataTypes: [PostgresDataType] = [.bytea, .text]
    typealias Row = Void

    let document: ByteBuffer
    let payload: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(document)
        bindings.append(payload)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}
#endif
