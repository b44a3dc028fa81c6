import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit
#if Postgres
import Logging
import PostgresNIO
import SceneStorePostgres
#endif

extension Bench {
    /// A process of `bench load`: a writer (tasks committing to random
    /// scenes until a deadline) or a watcher (following every scene),
    /// through SceneStore or through raw one-statement upserts + NOTIFY.
    /// Prints `ready`, then `result <json>` when its time is up.
    struct LoadPeer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load-peer", abstract: "A process of `bench load`.", shouldDisplay: false)

        enum Role: String, ExpressibleByArgument { case writer, watcher }
        enum Mode: String, ExpressibleByArgument, CaseIterable { case store, raw }

        @Option var role: Role
        @Option var mode: Mode
        @Option(help: "The database URL.") var url: String
        @Option var scenes: Int
        @Option var tasks = 16
        /// How long writers write; the watcher follows until its stdin ends.
        @Option var seconds: Double

        /// What a writer did: its commit latencies, and the last value it
        /// acknowledged for each scene and key.
        struct WriterResult: Codable {
            var commitNanoseconds: [Int] = []
            var failures = 0
            /// "scene key" -> the value of the last acknowledged write.
            var acknowledged: [String: Int] = [:]

            /// Adds what another task or process did (each writes keys of its own).
            mutating func add(_ other: WriterResult) {
                commitNanoseconds += other.commitNanoseconds
                failures += other.failures
                acknowledged.merge(other.acknowledged) { $1 }
            }
        }

        /// What the watcher saw: one latency per change received.
        struct WatcherResult: Codable {
            var propagationNanoseconds: [Int] = []
        }

        func run() async throws {
            #if Postgres
            switch (role, mode) {
            case (.writer, .store): emit("result " + (try jsonLine(try await storeWriter())))
            case (.writer, .raw): emit("result " + (try jsonLine(try await rawWriter())))
            case (.watcher, .store): emit("result " + (try jsonLine(try await storeWatcher())))
            case (.watcher, .raw): emit("result " + (try jsonLine(try await rawWatcher())))
            }
            #else
            throw failure("bench load needs the Postgres trait")
            #endif
        }

        #if Postgres
        static let channel = "scenestore_load_raw"

        private var deadline: Int { monotonicNanoseconds() + Int(seconds * 1e9) }

        private func storeWriter() async throws -> WriterResult {
            let registry = try await SceneRegistry(
                postgres: url, appID: "load", configuration: .init(savePolicy: .onFlush, watcher: .none))
            var opened: [SceneStore] = []
            for index in 0..<scenes { opened.append(try await registry.store(for: "s\(index)")) }
            let stores = opened
            emit("ready \(getpid())")
            let end = deadline
            let pid = getpid()
            let results = await withTaskGroup(of: WriterResult.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var result = WriterResult()
                        let key = "p\(pid)t\(task)"
                        var generator = SystemRandomNumberGenerator()
                        while monotonicNanoseconds() < end {
                            let scene = Int.random(in: 0..<stores.count, using: &generator)
                            let stamp = monotonicNanoseconds()
                            do {
                                try stores[scene].set(stamp, forKey: key)
                                try await stores[scene].flush()
                                result.commitNanoseconds.append(monotonicNanoseconds() - stamp)
                                result.acknowledged["s\(scene) \(key)"] = stamp
                            } catch {
                                result.failures += 1
                            }
                        }
                        return result
                    }
                }
                return await group.reduce(into: [WriterResult]()) { $0.append($1) }
            }
            try await registry.close()
            return results.reduce(into: WriterResult()) { $0.add($1) }
        }

        private func storeWatcher() async throws -> WatcherResult {
            let registry = try await SceneRegistry(postgres: url, appID: "load", configuration: .init(watcher: .automatic))
            let latencies = Locked<[Int]>([])
            var followers: [Task<Void, Never>] = []
            for index in 0..<scenes {
                let changes = try await registry.store(for: "s\(index)").changes()
                followers.append(Task {
                    for await change in changes {
                        guard case .external = change.origin, case .int(let stamp)? = change.newValue else { continue }
                        let latency = monotonicNanoseconds() - stamp
                        latencies.withLock { $0.append(latency) }
                    }
                })
            }
            emit("ready \(getpid())")
            await Self.inputEnded()
            for follower in followers { follower.cancel() }
            try await registry.close()
            return WatcherResult(propagationNanoseconds: latencies.withLock { $0 })
        }

        /// A plain connection to the database `url` names (no TLS: a
        /// temporary server on loopback).
        static func connect(_ url: String) async throws -> PostgresConnection {
            guard let parts = URLComponents(string: url), let host = parts.host, let user = parts.user else {
                throw failure("not a database URL")
            }
            var configuration = PostgresConnection.Configuration(
                host: host, port: parts.port ?? 5432, username: user, password: parts.password,
                database: String(parts.path.dropFirst()), tls: .disable)
            configuration.options.connectTimeout = .seconds(30)
            return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        }

        /// The floor: per task one connection, one statement per commit
        /// (an upsert and its NOTIFY, autocommitted: one round trip).
        private func rawWriter() async throws -> WriterResult {
            var opened: [PostgresConnection] = []
            for _ in 0..<tasks { opened.append(try await Self.connect(url)) }
            let connections = opened
            emit("ready \(getpid())")
            let end = deadline
            let pid = Int(getpid())
            let scenes = self.scenes
            let results = await withTaskGroup(of: WriterResult.self) { group in
                for (task, connection) in connections.enumerated() {
                    group.addTask {
                        var result = WriterResult()
                        let key = "p\(pid)t\(task)"
                        while monotonicNanoseconds() < end {
                            let scene = "s\(Int.random(in: 0..<scenes))"
                            let stamp = monotonicNanoseconds()
                            do {
                                _ = try await connection.query("""
                                    WITH up AS (
                                        INSERT INTO load_raw (scene, key, value) VALUES (\(scene), \(key), \(stamp))
                                        ON CONFLICT (scene, key) DO UPDATE SET value = EXCLUDED.value RETURNING 1)
                                    SELECT pg_notify(\(Self.channel), \(String(stamp))) FROM up
                                    """, logger: Self.logger)
                                result.commitNanoseconds.append(monotonicNanoseconds() - stamp)
                                result.acknowledged["\(scene) \(key)"] = stamp
                            } catch {
                                result.failures += 1
                            }
                        }
                        return result
                    }
                }
                return await group.reduce(into: [WriterResult]()) { $0.append($1) }
            }
            for connection in connections { try? await connection.close() }
            return results.reduce(into: WriterResult()) { $0.add($1) }
        }

        private func rawWatcher() async throws -> WatcherResult {
            let connection = try await Self.connect(url)
            let latencies = Locked<[Int]>([])
            connection.addListener(channel: Self.channel) { _, notification in
                guard let stamp = Int(notification.payload) else { return }
                let latency = monotonicNanoseconds() - stamp
                latencies.withLock { $0.append(latency) }
            }
            _ = try await connection.query(PostgresQuery(unsafeSQL: "LISTEN \(Self.channel)"), logger: Self.logger)
            emit("ready \(getpid())")
            await Self.inputEnded()
            try? await connection.close()
            return WatcherResult(propagationNanoseconds: latencies.withLock { $0 })
        }

        /// Returns once stdin reached its end (the coordinator closed it).
        static func inputEnded() async {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    _ = FileHandle.standardInput.readDataToEndOfFile()
                    done.resume()
                }
            }
        }

        static let logger = Logger(label: "bench-load")
        #endif
    }
}
