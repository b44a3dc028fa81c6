#if Postgres
import Foundation
import Logging
import PostgresNIO
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// The suites' server: SceneStoreTesting's, as apps' tests get it.
typealias PostgresServer = TemporaryPostgresServer

/// Starts one ``PostgresServer`` for a suite (or a test), stops and deletes
/// it after the suite's last test; each test makes its own database in it
/// (``PostgresServer/createDatabase()``).
struct PostgresServerTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try await blockingWork { try PostgresServer.start() }
        do {
            try await PostgresServer.$shared.withValue(server) {
                try await function()
            }
        } catch {
            _ = try? await blockingWork { server.destroy() }
            throw error
        }
        _ = try? await blockingWork { server.destroy() }
    }
}

extension Trait where Self == PostgresServerTrait {
    /// A PostgreSQL server for the suite (``PostgresServer/shared``).
    static var postgresServer: Self { Self() }
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite where PostgreSQL is not installed.
    static var requiresPostgres: Self {
        .enabled(
            if: PostgresServer.isAvailable,
            "PostgreSQL's binaries (initdb, pg_ctl, postgres in /usr/lib/postgresql/*/bin) are not installed: run .ci/deps --test"
        )
    }
}

extension PostgresServer {
    /// The suite's server, inside a suite with ``PostgresServerTrait``.
    @TaskLocal static var shared: PostgresServer?

    static func current() throws -> PostgresServer {
        try #require(shared, "the suite needs the .postgresServer trait")
    }

    /// A server for one test (taking TLS connections too when `tls`),
    /// stopped and deleted when `body` ends.
    static func with<Result: Sendable>(
        tls: Bool = false, _ body: (PostgresServer) async throws -> Result
    ) async throws -> Result {
        let server = try await blockingWork { try start(tls: tls) }
        do {
            let result = try await body(server)
            _ = try? await blockingWork { server.destroy() }
            return result
        } catch {
            _ = try? await blockingWork { server.destroy() }
            throw error
        }
    }

    /// A new database (``TemporaryPostgresServer/createDatabase()``), made
    /// without blocking the tests' shared threads.
    func newDatabase() async throws -> String {
        try await blockingWork { try self.createDatabase() }
    }

    /// Runs `body` on a connection of its own to `database`.
    func withConnection<Result>(
        database: String = "postgres", _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: port, username: user, password: password, database: database, tls: .disable
        )
        configuration.options.connectTimeout = .seconds(10)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static let logger = Logger(label: "SceneStorePostgresTests")
}
#endif
