#if Postgres
import Foundation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// A database URL typed wrong still carries its password: no message
/// shows it, from `--backend` or `$SCENES_DATABASE_URL`, whether or not
/// the URL parses.
// Hang guard: its slowest test took 9 s in its layer here, 55 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct MisspeltBackendURLTests {
    static let secret = "Xyzzy42"

    @Test(arguments: [
        "postgres:/app:Xyzzy42@127.0.0.1:5432/app",
        "postgresql:/app:Xyzzy42@127.0.0.1:5432/app",
        "postgres//app:Xyzzy42@127.0.0.1:5432/app",
        "postgres:app:Xyzzy42@127.0.0.1:5432/app",
        "//app:Xyzzy42@127.0.0.1:5432/app",
        "app:Xyzzy42@127.0.0.1:5432/app",
        "app:Xyzzy42@127.0.0.1",
        "host=127.0.0.1 user=app password=Xyzzy42 dbname=app",
    ])
    func misspeltURLIsRefusedWithoutItsPassword(url: String) async throws {
        let fixture = try await SceneStoreFixture()
        let show = ["show", "--scene", "p"]
        let runs = [
            (show + ["--backend", url], ["SCENES_LOG_LEVEL": "trace"]),
            (show, ["SCENES_LOG_LEVEL": "trace", "SCENES_DATABASE_URL": url]),
        ]
        for (arguments, environment) in runs {
            let result = try await scenes(arguments, root: fixture.root, environment: environment)
            #expect(result.status == 64, "\(url): \(result.stderr)")
            #expect(result.stderr.contains("invalid scene storage"), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains(Self.secret), "\(url): \(result.stderr)")
            #expect(!result.stdout.contains(Self.secret), "\(url): \(result.stdout)")
        }
    }
}
#endif
