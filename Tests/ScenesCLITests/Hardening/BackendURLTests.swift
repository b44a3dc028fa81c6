#if Postgres
import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `--backend URL`: no message shows a password, wherever the URL carries
/// it; libpq's common query parameters and Unix-socket hosts work.
// Hang guard: its slowest test took 24 s here (2 cores); 2 minutes, at least 4 times that.
@Suite(.timeLimit(.minutes(2)))
struct BackendURLTests {
    /// Every secret below starts with this.
    static let secret = "S3cret"

    /// URLs that cannot be used: refused (64) before anything connects.
    @Test(arguments: [
        "postgres://scenes@127.0.0.1/db?password=S3cretPW&sslmode=S3cretPW",
        "postgres://scenes:S3cretPW@127.0.0.1/db?sslmode=verify-full",
        "postgres://scenes@127.0.0.1/db?sslpassword=S3cretPW",
        "postgres://scenes@127.0.0.1/db?S3cretPW",
        "postgres://scenes@127.0.0.1/db?passwd=S3cretPW",
        "postgres://scenes@127.0.0.1/db?S3cretPW=1",
        "postgres://scenes:S3cretPW@127.0.0.1/db?password=S3cretPW",
        "postgres://scenes@127.0.0.1/db?password=S3cretPW&password=S3cretPW",
        "postgres://scenes@127.0.0.1/db?password=S3cretPW&connect_timeout=0",
        "postgres://scenes:S3cretPW@127.0.0.1/db?host=%2Ftmp",
        "postgres://scenes:S3cretPW@127.0.0.1:99999/db",
        "postgres://scenes:S3cretPW@127.0.0.1:abc/db",
        "postgres://scenes:S3cret/PW@127.0.0.1/db",
        "postgres://scenes:S3cret?PW@127.0.0.1/db",
        "postgres://scenes:S3cret#PW@127.0.0.1/db",
        "postgres://scenes:S3cret%40PW@127.0.0.1/db/extra",
        "postgres://:S3cretPW@127.0.0.1/db",
        "postgres://scenes@127.0.0.1/db#S3cretPW",
        "postgres://scenes:S3cretPW@relative%2Fdir/db",
        "mysql://scenes:S3cretPW@127.0.0.1/db?password=S3cretPW",
    ])
    func unusableURLIsRefusedWithoutItsSecrets(url: String) async throws {
        let fixture = try await SceneStoreFixture()
        for arguments in [["get", "--scene", "s", "k"], ["set", "--scene", "s", "k", "--int", "1"]] {
            let result = try await scenes(
                arguments + ["--backend", url], root: fixture.root, environment: ["SCENES_LOG_LEVEL": "trace"])
            #expect(result.status == 64, "\(url): \(result.stderr)")
            #expect(result.stderr.contains("invalid scene storage"), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains(Self.secret), "\(url): \(result.stderr)")
            #expect(!result.stdout.contains(Self.secret), "\(url): \(result.stdout)")
        }
    }

    /// The refusals say what is wrong, without the values.
    @Test func refusalsNameTheProblem() async throws {
        let fixture = try await SceneStoreFixture()
        let cases = [
            ("postgres://scenes@127.0.0.1/db?sslmode=bogus", "sslmode takes disable, prefer, require"),
            ("postgres://scenes:S3cretPW@127.0.0.1/db?password=S3cretPW", "the password is given twice"),
            ("postgres://scenes@127.0.0.1/db?sslpassword=S3cretPW", "parameter sslpassword is not supported"),
            ("postgres://scenes@127.0.0.1/db?S3cretPW", "query parameter 1 is not one libpq knows"),
            ("postgres://scenes@127.0.0.1/db?connect_timeout=-1", "connect_timeout takes whole seconds from 1 to 3600"),
            ("postgres://scenes@relative%2Fdir/db", "a Unix-socket host must be an absolute directory"),
        ]
        for (url, reason) in cases {
            let result = try await scenes(["get", "--backend", url, "--scene", "s", "k"], root: fixture.root)
            #expect(result.status == 64, "\(url): \(result.stderr)")
            #expect(result.stderr.contains(reason), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains("bogus") && !result.stderr.contains("-1"), "\(url): \(result.stderr)")
        }
    }

    /// A usable URL whose server is not there: unavailable (69), and the
    /// message and the trace log name the server without the password.
    @Test(arguments: [
        "postgres://scenes:S3cretPW@127.0.0.1:PORT/db",
        "postgres://scenes@127.0.0.1:PORT/db?password=S3cretPW&sslmode=disable&application_name=S3cretApp",
        "postgres://scenes@127.0.0.1:PORT/db?connect_timeout=2&password=S3cret%26PW",
    ])
    func unreachableServerIsNamedWithoutItsSecrets(url: String) async throws {
        let fixture = try await SceneStoreFixture()
        let url = url.replacingOccurrences(of: "PORT", with: String(try TemporaryPostgresServer.freePort()))
        for environment in [["SCENES_LOG_LEVEL": "trace"], ["SCENES_DATABASE_URL": url]] {
            let backend = environment["SCENES_DATABASE_URL"] == nil ? ["--backend", url] : []
            let result = try await scenes(
                ["set", "--scene", "s", "k", "--int", "1"] + backend, root: fixture.root, environment: environment)
            #expect(result.status == 69, "\(url): \(result.stderr)")
            #expect(result.stderr.contains("scene storage postgres://scenes@127.0.0.1:"), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains(Self.secret), "\(url): \(result.stderr)")
        }
    }

    /// libpq's `password`, `sslmode=disable`, `application_name` and
    /// `connect_timeout` parameters, and a Unix-socket directory as the
    /// host, reach a real server.
    @Test(.enabled(if: TemporaryPostgresServer.isAvailable, "PostgreSQL is not installed (.ci/deps --test installs it)"))
    func parametersAndUnixSocketsConnect() async throws {
        let server = try await blockingWork { try TemporaryPostgresServer.start() }
        defer { server.destroy() }
        let fixture = try await SceneStoreFixture()
        let password = try #require(server.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let socket = try #require(
            server.root.appendingPathComponent("socket").path.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let urls = [
            "postgres://\(server.user)@127.0.0.1:\(server.port)/postgres"
                + "?password=\(password)&sslmode=disable&application_name=scenes-tests&connect_timeout=5",
            "postgres://\(server.user)@\(socket):\(server.port)/postgres",
            "postgresql://\(server.user):\(password)@\(socket):\(server.port)/postgres?application_name=x",
        ]
        for (index, url) in urls.enumerated() {
            // The trace log of a whole connection (startup, authentication) shows no password either.
            let set = try await scenes(
                ["set", "--backend", url, "--scene", "s", "k\(index)", "--int", "\(index)"], root: fixture.root,
                environment: ["SCENES_LOG_LEVEL": "trace"])
            #expect(set.status == 0, "\(url): \(set.stderr)")
            #expect(!set.stderr.isEmpty && !set.stderr.contains(password) && !set.stderr.contains(server.password))
            let get = try await scenes(["get", "--backend", url, "--scene", "s", "k\(index)"], root: fixture.root)
            #expect(get.stdout == "\(index)\n", "\(url): \(get.stderr)")
        }
        // A socket directory where no server listens is unreachable, not a DNS name.
        let absent = "postgres://\(server.user)@%2Fnonexistent%2Fdir:\(server.port)/postgres"
        let result = try await scenes(["get", "--backend", absent, "--scene", "s", "k0"], root: fixture.root)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("scene storage postgres://\(server.user)@%2Fnonexistent%2Fdir:"), "\(result.stderr)")
    }
}
#endif
