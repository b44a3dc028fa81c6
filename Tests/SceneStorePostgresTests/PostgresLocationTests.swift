#if Postgres
import Foundation
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// Database URLs as libpq takes them: the common query parameters and
/// Unix-socket hosts; and no error or description ever shows a password
/// or a query value.
// Hang guard: its slowest test took 18 s here (2 cores); 2 minutes, at least 4 times that.
@Suite(.timeLimit(.minutes(2)))
struct PostgresLocationTests {
    @Test func queryParametersAreTaken() throws {
        let location = try PostgresLocation(
            "postgres://ada@db.example/scenes?password=top%26secret&sslmode=disable&application_name=editor&connect_timeout=7")
        #expect(location.password == "top&secret")
        #expect(location.applicationName == "editor")
        #expect(location.connectTimeout == .seconds(7))
        #expect(location.connectTimeout(default: .seconds(5)) == .seconds(7))
        #expect(location.description == "postgres://ada@db.example:5432/scenes")

        let plain = try PostgresLocation("postgres://ada@db.example/scenes")
        #expect(plain.password == nil)
        #expect(plain.applicationName == "SceneStore")
        #expect(plain.connectTimeout(default: .seconds(5)) == .seconds(5))
    }

    @Test func percentEncodedAbsoluteHostIsAUnixSocketDirectory() throws {
        let location = try PostgresLocation("postgres://scenes@%2Fvar%2Frun%2Fpostgresql:5433/postgres")
        #expect(location.isUnixSocket)
        #expect(location.host == "/var/run/postgresql")
        #expect(location.description == "postgres://scenes@%2Fvar%2Frun%2Fpostgresql:5433/postgres")
        let configuration = location.configuration(defaultConnectTimeout: .seconds(5))
        #expect(configuration.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5433")
        #expect(configuration.host == nil)
        #expect(!(try PostgresLocation("postgres://scenes@127.0.0.1/postgres")).isUnixSocket)
    }

    /// Each refused URL carries a secret starting with `S3cret`; neither
    /// the error's location nor its description shows any of it.
    @Test(arguments: [
        "postgres://u@h/db?password=S3cretPW&sslmode=verify-full",
        "postgres://u:S3cretPW@h/db?sslmode=allow",
        "postgres://u@h/db?sslpassword=S3cretPW",
        "postgres://u@h/db?S3cretPW",
        "postgres://u@h/db?S3cretPW=x",
        "postgres://u@h/db?pasword=S3cretPW",
        "postgres://u:S3cretPW@h/db?password=S3cretPW",
        "postgres://u@h/db?password=S3cretPW&password=S3cretPW",
        "postgres://u@h/db?password=S3cretPW&connect_timeout=99999",
        "postgres://u@h/db?password=S3cretPW&application_name=a%00b",
        "postgres://u:S3cretPW@h/db?host=%2Ftmp",
        "postgres://u:S3cretPW@h:99999/db",
        "postgres://u:S3cretPW@h:abc/db",
        "postgres://u:S3cret/PW@h/db",
        "postgres://u:S3cret?PW@h/db",
        "postgres://u:S3cret#PW@h/db",
        "postgres://u:S3cret%40PW@h/a/b",
        "postgres://:S3cretPW@h/db",
        "postgres://u@h/db#S3cretPW",
        "postgres://u:S3cretPW@sock%2Fdir/db",
        "postgres://u:S3cretPW@%2F\(String(repeating: "d", count: 120))/db",
        "mysql://u:S3cretPW@h/db?password=S3cretPW",
        // Misspelt: the user info is no user info to URLComponents.
        "postgres:/u:S3cretPW@127.0.0.1:5432/db",
        "postgresql:/u:S3cretPW@127.0.0.1:5432/db",
        "postgres//u:S3cretPW@127.0.0.1:5432/db",
        "postgres:u:S3cretPW@127.0.0.1:5432/db",
        "//u:S3cretPW@127.0.0.1:5432/db",
        "u:S3cretPW@127.0.0.1:5432/db",
        "POSTGRES:/u:S3cret:PW@h/db",
        "postgres:/u:S3cret/PW@h/db",
        "postgres:/u:S3cret?PW@h/db",
        "postgres:/u:S3cret//PW@h/db",
        "u:S3cretPW@127.0.0.1",
        "host=127.0.0.1 user=u password=S3cretPW dbname=db",
        "host=h password = 'S3cret \\' PW'",
    ])
    func refusalsShowNoSecret(url: String) {
        do {
            _ = try PostgresLocation(url)
            Issue.record("\(url) was accepted")
        } catch .invalidStorageLocation(let location, let reason) {
            #expect(!location.contains("S3cret"), "\(location)")
            #expect(!reason.contains("S3cret"), "\(reason)")
        } catch {
            Issue.record("expected invalidStorageLocation, got \(error)")
        }
    }

    @Test func refusalsSayWhatIsWrong() {
        func reason(_ url: String) -> String {
            do {
                _ = try PostgresLocation(url)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(reason("postgres://u@h/db?sslmode=bogus")
            == #"invalid scene storage "postgres://u@h/db?sslmode=***": sslmode takes disable, prefer, require, verify-ca or verify-full"#)
        #expect(reason("postgres://u@h/db?S3cretPW").contains(#""postgres://u@h/db?***": query parameter 1 is not one libpq knows"#))
        #expect(reason("postgres://u:pw@h/db?password=pw").contains("the password is given twice"))
        #expect(reason("postgres://u@h/db?connect_timeout=0").contains("connect_timeout takes whole seconds from 1 to 3600"))
        #expect(reason("postgres://u@h/db?keepalives=1").contains("parameter keepalives is not supported"))
        #expect(reason("postgres://u@sock%2Fdir/db").contains("a Unix-socket host must be an absolute directory"))
        #expect(reason("postgres://u:pw@h:abc/db") == #"invalid scene storage "postgres://u@h:abc/db": not a URL (percent-encode reserved characters such as @ : / ? # in the user name and password)"#)
    }

    /// `sslrootcert` naming a FIFO (whose opening would wait for a writer
    /// forever) or a directory: the registry's open refuses it at once,
    /// with a typed error. Bounded: an open that blocks fails after 20 s,
    /// and the FIFO is then given a writer so the blocked thread ends.
    @Test func anSslrootcertThatIsNoRegularFileIsRefusedAtOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sslrootcert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("roots.pem").path
        try #require(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, directory.path] {
            let encoded = try #require(path.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let url = "postgres://ada@127.0.0.1/scenes?sslmode=verify-ca&sslrootcert=\(encoded)"
            let outcome = Locked<(any Error)??>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                do {
                    let registry = try await SceneRegistry(postgres: url, appID: "tls-test")
                    registry.abandon()
                    outcome.withLock { $0 = .some(nil) }
                } catch {
                    outcome.withLock { $0 = .some(error) }
                }
                done.signal()
            }
            guard done.wait(timeout: .now() + 20) == .success else {
                Issue.record("opening the registry blocked on sslrootcert \(path)")
                let writer = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)
                if writer >= 0 { close(writer) }
                done.wait()
                continue
            }
            let error = outcome.withLock { $0 } ?? nil
            guard case SceneStoreError.invalidStorageLocation(_, let reason)? = error else {
                Issue.record("expected invalidStorageLocation for \(path), got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("sslrootcert"), "\(reason)")
        }
    }

    /// The application name and the password given as parameters reach a
    /// real server, over TCP and over its Unix socket.
    @Test(.requiresPostgres) func parametersReachTheServer() async throws {
        try await PostgresServer.with { server in
            let password = try #require(server.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let socket = try #require(
                server.root.appendingPathComponent("socket").path.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let urls = [
                "postgres://\(server.user)@127.0.0.1:\(server.port)/postgres?password=\(password)&application_name=tcp-test",
                "postgres://\(server.user)@\(socket):\(server.port)/postgres?application_name=socket-test&connect_timeout=3",
            ]
            for (url, expected) in zip(urls, ["tcp-test", "socket-test"]) {
                let session = try await PostgresSession.connect(
                    to: try PostgresLocation(url), timeout: .seconds(5), logger: PostgresServer.logger)
                defer { session.close() }
                let names = try await session.rows("SELECT current_setting('application_name')", as: String.self)
                #expect(names == [expected])
            }
        }
    }
}
#endif
