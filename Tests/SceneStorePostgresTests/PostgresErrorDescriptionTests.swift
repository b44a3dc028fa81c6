#if Postgres
import Foundation
@testable import PostgresNIO
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// What a failed call says: what the server said (its message and
/// SQLSTATE), also where postgres-nio wraps it in the error of a closing
/// connection, and never the password.
// Hang guard: its slowest test took 16 s here (2 cores); 2 minutes, at least 4 times that.
@Suite(.timeLimit(.minutes(2)))
struct PostgresErrorDescriptionTests {
    /// A statement sent while the server ends an idle connection (a
    /// restart, `pg_terminate_backend`) fails with postgres-nio's
    /// closed-connection error holding the server's (its connection state
    /// machine's `enqueue` in `.closing`): the description says what the
    /// server said.
    @Test func aClosedConnectionSaysWhatTheServerSaid() {
        let server = PSQLError.server(.init(fields: [
            .severity: "FATAL", .sqlState: "57P01", .message: "terminating connection due to administrator command",
        ]))
        for error in [server, .clientClosedConnection(underlying: server), .serverClosedConnection(underlying: server)] {
            let description = PostgresSession.describe(error)
            #expect(description.hasSuffix("terminating connection due to administrator command (SQLSTATE 57P01)"),
                    "\(description)")
        }
        #expect(PostgresSession.describe(PSQLError.serverClosedConnection(underlying: nil)) == "serverClosedConnection")
    }

    /// A connect the server refuses says why, without the password.
    @Test(.requiresPostgres) func aRefusedConnectSaysWhyWithoutThePassword() async throws {
        try await PostgresServer.with { server in
            let location = try PostgresLocation(server.url(database: "no_such_database"))
            let error = await #expect(throws: SceneStoreError.self) {
                try await PostgresSession.connect(to: location, timeout: .seconds(30), logger: PostgresServer.logger).close()
            }
            let reason = error?.unavailableReason ?? ""
            #expect(reason.contains(#"database "no_such_database" does not exist (SQLSTATE 3D000)"#), "\(reason)")
            #expect(!"\(String(describing: error))".contains(server.password))
        }
    }
}

extension SceneStoreError {
    /// Why the storage is unavailable, or the error as it reads.
    var unavailableReason: String {
        if case .storageUnavailable(_, let reason) = self { return reason }
        return "\(self)"
    }
}
#endif
