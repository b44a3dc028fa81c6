#if Postgres
import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// Log lines are terminal-safe too: a PostgreSQL row whose scene is no
/// scene id, made of escape sequences, is logged escaped by every command
/// that lists the scenes.
// Hang guard: its slowest test took 18 s here (2 cores); 2 minutes, at least 4 times that.
@Suite(.timeLimit(.minutes(2)))
struct LogEscapingTests {
    @Test(.enabled(if: TemporaryPostgresServer.isAvailable, "PostgreSQL is not installed (.ci/deps --test installs it)"))
    func aHostileSceneNameIsLoggedEscaped() async throws {
        let server = try await blockingWork { try TemporaryPostgresServer.start() }
        defer { server.destroy() }
        let fixture = try await SceneStoreFixture()
        let backend = ["--backend", server.socketURL()]
        let created = try await scenes(["set", "--scene", "good", "k", "--int", "1"] + backend, root: fixture.root)
        #expect(created.status == 0, "\(created.stderr)")
        // Clear the screen, retitle the window (OSC ... BEL), a C1 CSI, DEL.
        let hostile = "'evil' || chr(27) || '[2J' || chr(27) || ']0;owned' || chr(7) || chr(155) || '31m' || chr(127)"
        let insert = try await psql(
            server, "INSERT INTO scenestore_scenes (app, scene, document) VALUES ('scenes', \(hostile), '\\x00')",
            root: fixture.root)
        #expect(insert.status == 0, "\(insert.stderr)")

        for command in [["list"], ["show", "--scene", "good"]] {
            let result = try await scenes(command + backend, root: fixture.root)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(#"evil\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m\u{7F}"#), "\(command): \(result.stderr)")
            #expect(TerminalEscapingTests.isTerminalSafe(result.stderr), "\(command): \(result.stderr.debugDescription)")
            #expect(TerminalEscapingTests.isTerminalSafe(result.stdout), "\(command): \(result.stdout.debugDescription)")
        }
    }

    /// Runs `sql` with `psql` on the server's socket.
    private func psql(_ server: TemporaryPostgresServer, _ sql: String, root: URL) async throws -> ScenesResult {
        let psql = try #require(TemporaryPostgresServer.binDirectory).appendingPathComponent("psql").path
        let socket = server.root.appendingPathComponent("socket").path
        return try await scenes(
            ["-c", #""$0" -X -v ON_ERROR_STOP=1 -h "$1" -p "$2" -U "$3" -d postgres -c "$4""#,
             psql, socket, "\(server.port)", server.user, sql],
            root: root, program: .shell)
    }
}
#endif
