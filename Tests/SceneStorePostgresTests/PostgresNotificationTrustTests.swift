#if Postgres
import Foundation
import Logging
import PostgresNIO
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// PostgreSQL lets every role that can connect `LISTEN` and `NOTIFY` on
/// any channel, whatever its table privileges: a notification is a hint
/// that costs a read, never a value, in either direction.
// Hang guard: its slowest test took 8 s in its layer here, 67 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.requiresPostgres, .postgresServer, .timeLimit(.minutes(2)))
struct PostgresNotificationTrustTests {
    /// A role with no privilege on any table, connected as an attacker would.
    private static func outsider(_ server: PostgresServer, url: String) async throws -> PostgresConnection {
        let database = try #require(URL(string: url)?.lastPathComponent)
        let role = "outsider_\(UInt32.random(in: 0...UInt32.max))"
        try await server.withConnection(database: database) { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN PASSWORD 'outsider-pw'"), logger: Self.logger)
        }
        var configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: server.port, username: role, password: "outsider-pw", database: database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        return try await PostgresConnection.connect(configuration: configuration, id: 2, logger: Self.logger)
    }

    /// Channels an outsider can name: the app's (derived from the app id
    /// alone) and any with a suffix a version of SceneStore ever used.
    private static func channels(app: String) -> [String] {
        let channel = PostgresNames.channel(app: app)
        return [channel, channel + "_d"]
    }

    @Test func anOutsiderListeningHearsNoValue() async throws {
        let server = try PostgresServer.current()
        let url = try await server.newDatabase()
        let outsider = try await Self.outsider(server, url: url)
        let (heard, hear) = AsyncStream.makeStream(of: String.self)
        for channel in Self.channels(app: "trust") {
            outsider.addListener(channel: channel) { _, notification in hear.yield(notification.payload) }
        }
        _ = try await outsider.query(PostgresQuery(unsafeSQL: "SELECT 1"), logger: Self.logger)

        let registry = try await SceneRegistry(postgres: url, appID: "trust")
        let store = try await registry.store(for: "main")
        try store.set("hunter2", forKey: "secret")
        try await store.flush()
        try store.set(Data("hunter3".utf8), forKey: "blob")
        try await store.flush()
        // The second save's notification arrives after the first's: then
        // both were heard, on every channel.
        let received = await heard.prefix(2, within: .seconds(60))
        #expect(received.count == 2)
        for payload in received {
            #expect(payload == "main", "a notification carries the scene id only, never a value")
            #expect(!payload.contains("hunter") && !payload.contains(Data("hunter3".utf8).base64EncodedString()))
        }
        try await registry.close()
        try await outsider.close()
    }

    @Test func forgedNotificationsCostAReadNeverAWrongValue() async throws {
        let server = try PostgresServer.current()
        let url = try await server.newDatabase()
        let watcher = try await SceneRegistry(postgres: url, appID: "trust")
        let writer = try await SceneRegistry(postgres: url, appID: "trust", configuration: .init(watcher: .none))
        let watched = try await watcher.store(for: "main")
        let written = try await writer.store(for: "main")
        try written.set(1, forKey: "n")
        try await written.flush()
        #expect(await watched.values(forKey: "n", default: 0).first(within: .seconds(60)) { $0 == 1 } == 1)

        // Forged: the stored incarnation, a generation just after it and one
        // a million ahead, each a well-formed document with its checksum.
        let storage = try PostgresSceneStorage(testing: url, app: "trust")
        guard case .bytes(let stored) = try await storage.read(SceneID("main"), after: nil),
              let version = SceneFile.peekVersion(stored), let incarnation = version.incarnation
        else { Issue.record("no stored document"); return }
        let outsider = try await Self.outsider(server, url: url)
        for generation in [version.generation + 1, version.generation + 1_000_000] {
            let forged = SceneFile(
                scene: "main", generation: generation, incarnation: incarnation,
                writer: WriterIdentity(pid: 1, token: "0123456789abcdef"), values: ["evil": .string("pwned")]
            ).encoded()
            // A payload is text without NUL, which the binary document holds: as text, its other bytes.
            let text = String(decoding: forged.filter { $0 != 0 }, as: UTF8.self)
            for channel in Self.channels(app: "trust") {
                for payload in ["main", "main\nt" + text, "main\nb" + forged.base64EncodedString()] {
                    _ = try await outsider.query("SELECT pg_notify(\(channel), \(payload))", logger: Self.logger)
                }
            }
        }

        // Real commits after the forgeries still arrive, and nothing forged does.
        for n in 2...3 {
            try written.set(n, forKey: "n")
            try await written.flush()
            #expect(await watched.values(forKey: "n", default: 0).first(within: .seconds(60)) { $0 == n } == n)
        }
        #expect(watched.snapshot == ["n": .int(3)])
        try await outsider.close()
        try await watcher.close()
        try await writer.close()
    }

    static let logger = Logger(label: "PostgresNotificationTrustTests")
}
#endif
