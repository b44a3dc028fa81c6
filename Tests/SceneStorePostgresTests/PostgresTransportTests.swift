#if Postgres
import Foundation
import Logging
import PostgresNIO
import SceneStore
@testable import SceneStorePostgres
import SceneStoreTesting
import Testing

/// How a storage reaches its server: TLS as `sslmode` and `sslrootcert`
/// ask, checked against what the server itself reports (`pg_stat_ssl`),
/// and Unix-socket hosts, against real servers.
// Hang guard: its slowest test took 21 s in its layer here, 85 s in the whole suite (every test at once on 2 cores); 3 minutes.
@Suite(.requiresPostgres, .timeLimit(.minutes(3)))
struct PostgresTransportTests {
    /// `url` with `127.0.0.1` replaced by `host` and `query` appended.
    private func url(_ url: String, host: String = "127.0.0.1", _ query: String = "") -> String {
        url.replacingOccurrences(of: "@127.0.0.1:", with: "@\(host):") + (query.isEmpty ? "" : "?" + query)
    }

    /// Whether the server sees the connection `url` makes as encrypted
    /// (a connection as the storage makes them).
    private func encrypted(_ url: String) async throws -> Bool {
        let session = try await PostgresSession.connect(to: try PostgresLocation(url), timeout: .seconds(20), logger: Self.logger)
        defer { session.close() }
        let ssl = try await session.rows("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", as: Bool.self)
        try #require(ssl.count == 1, "pg_stat_ssl: \(ssl)")
        return ssl[0]
    }

    @Test func eachSSLModeGetsWhatItAsksOfAServerWithTLS() async throws {
        try await PostgresServer.with(tls: true) { server in
            let database = try await server.newDatabase()
            let authority = try #require(server.certificateAuthority).certificate.path
            #expect(try await encrypted(url(database, "sslmode=require")))
            #expect(try await encrypted(url(database)), "prefer, the default, takes TLS when the server offers it")
            #expect(try await !encrypted(url(database, "sslmode=disable")))
            #expect(try await encrypted(url(database, "sslmode=verify-ca&sslrootcert=\(authority)")))
            #expect(try await encrypted(url(database, host: "localhost", "sslmode=verify-full&sslrootcert=\(authority)")))
            // require with a root certificate checks the chain, as libpq's.
            #expect(try PostgresLocation(url(database, "sslmode=require&sslrootcert=\(authority)")).tls
                == .verifyCA(roots: .file(authority)))

            // A store works over it: a value written and read back by another registry.
            let writer = try await SceneRegistry(
                postgres: url(database, host: "localhost", "sslmode=verify-full&sslrootcert=\(authority)"), appID: "tls")
            let reader = try await SceneRegistry(postgres: url(database, "sslmode=require"), appID: "tls")
            let id = SceneID("main")
            let (written, read) = try await (writer.store(for: id), reader.store(for: id))
            try written.set("encrypted", forKey: "k")
            try await written.flush()
            let seen = await read.values(forKey: "k", default: "").first(within: .seconds(60)) { $0 == "encrypted" }
            #expect(seen == "encrypted")
            try await writer.close()
            try await reader.close()
        }
    }

    @Test func aCertificateFromAnotherAuthorityIsRefused() async throws {
        try await PostgresServer.with(tls: true) { server in
            let database = try await server.newDatabase()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenestore-ca-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let stranger = try TestCertificateAuthority.make(in: directory, name: "another authority")
            for mode in ["verify-full", "verify-ca"] {
                let storage = try PostgresSceneStorage(
                    testing: url(database, host: "localhost", "sslmode=\(mode)&sslrootcert=\(stranger.certificate.path)"))
                await #expect(throws: SceneStoreError.self, "\(mode)") {
                    _ = try await storage.read("main", after: nil)
                }
            }
        }
    }

    /// `verify-full` checks the host as the URL writes it, as libpq 14
    /// and later: a name against the certificate's DNS names, an IP
    /// literal against its IP addresses. (swift-nio-ssl's own check took
    /// a name whose address the certificate names.)
    @Test func verifyFullChecksTheHostAsTheURLWritesIt() async throws {
        try await PostgresServer.with(tls: true) { server in
            let database = try await server.newDatabase()
            let authority = try #require(server.certificateAuthority)
            func connects(to host: String) async -> Bool {
                let verified = url(database, host: host, "sslmode=verify-full&sslrootcert=\(authority.certificate.path)")
                return (try? await encrypted(verified)) == true
            }

            try await reissue(server, names: [], addresses: ["127.0.0.1"])
            #expect(await connects(to: "127.0.0.1"), "an IP literal the certificate's IP addresses name")
            #expect(await !connects(to: "localhost"), "a name that resolves to an address the certificate names")
            let refused = url(database, host: "localhost", "sslmode=verify-full&sslrootcert=\(authority.certificate.path)")
            let error = await #expect(throws: SceneStoreError.self) {
                _ = try await PostgresSession.connect(to: try PostgresLocation(refused), timeout: .seconds(20), logger: Self.logger)
            }
            #expect("\(String(describing: error))".contains("the server's certificate does not name localhost"), "\(String(describing: error))")

            // The connection that listens for changes checks the host too:
            // it sends the user and password only to a server that names it.
            let capture = LogCapture()
            let watched = try PostgresSceneStorage(testing: refused)
            let watch = await watched.watch(.automatic, logger: capture.logger()) { _ in }
            #expect(capture.warnings().contains { $0.contains("cannot listen") && $0.contains("does not name localhost") },
                    "\(capture.warnings())")
            watch?.cancel()

            try await reissue(server, names: ["localhost"], addresses: [])
            #expect(await connects(to: "localhost"))
            #expect(await !connects(to: "127.0.0.1"), "an IP literal the certificate names only as localhost")
        }
    }

    @Test func certificateNamesMatchAsLibpqMatchesThem() {
        let names = CertificateNames(dnsNames: ["DB.example.com", "*.pool.example.com", "10.0.0.9"], addresses: [[127, 0, 0, 1]])
        #expect(names.match("db.example.com"))
        #expect(names.match("a.pool.example.com"))
        #expect(!names.match("a.b.pool.example.com"), "a wildcard stands for one label")
        #expect(!names.match("pool.example.com"))
        #expect(names.match("127.0.0.1"))
        #expect(names.match("10.0.0.9"), "a DNS name written as the literal, as libpq compares it")
        #expect(!names.match("localhost"), "an IP address never names a host name")
        #expect(!names.match("::1"))
        #expect(CertificateNames(addresses: [Array(repeating: 0, count: 15) + [1]]).match("::1"))
        #expect(!CertificateNames().match("db.example.com"), "no subject alternative names: refused")
    }

    /// Gives `server` a certificate of its authority naming `names` and
    /// `addresses` only, and restarts it to take it.
    private func reissue(_ server: PostgresServer, names: [String], addresses: [String]) async throws {
        let authority = try #require(server.certificateAuthority)
        try await blockingWork {
            _ = try authority.issue(named: "server", for: names, addresses: addresses)
            try server.restart()
        }
    }

    @Test func requireRefusesAServerWithoutTLSAndPreferDoesWithout() async throws {
        try await PostgresServer.with { server in
            let database = try await server.newDatabase()
            let required = try PostgresSceneStorage(testing: url(database, "sslmode=require"))
            await #expect(throws: SceneStoreError.self) { _ = try await required.read("main", after: nil) }
            #expect(try await !encrypted(url(database)))
            #expect(try await !encrypted(url(database, "sslmode=prefer")))
        }
    }

    @Test func verifyModesAreCheckedWhenTheURLIsRead() throws {
        let base = "postgres://u@localhost/db"
        func reason(_ url: String) -> String? {
            do {
                _ = try PostgresLocation(url)
                return nil
            } catch {
                if case .invalidStorageLocation(_, let reason) = error { return reason }
                return "\(error)"
            }
        }
        #expect(reason(base + "?sslmode=verify-full")?.contains("need sslrootcert") == true)
        #expect(reason(base + "?sslmode=verify-ca&sslrootcert=relative.crt")?.contains("absolute path") == true)
        #expect(reason(base + "?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt")?.contains("no file that can be read") == true)
        #expect(reason("postgres://u@127.0.0.1/db?sslmode=verify-full&sslrootcert=system") == nil)
        #expect(reason("postgres://u@[::1]/db?sslmode=verify-full&sslrootcert=system") == nil)
        #expect(reason(base + "?sslmode=allow")?.contains("not supported") == true)
        #expect(reason(base + "?sslmode=bogus")?.contains("sslmode takes") == true)
        #expect(reason(base + "?sslmode=verify-full&sslrootcert=system") == nil)
        #expect(try PostgresLocation(base).tls == .prefer)
    }

    /// A registry on the Unix socket (both spellings of its directory) and
    /// one on TCP see each other's changes: commits and `LISTEN` go through
    /// the socket too.
    @Test func unixSocketHostsReachTheServer() async throws {
        try await PostgresServer.with { server in
            let database = try await server.newDatabase()
            let name = try #require(URL(string: database)).lastPathComponent
            let socket = server.root.appendingPathComponent("socket").path
            let percentEncoded = server.socketURL(database: name)
            let hostParameter = "postgres://\(server.user)@/\(name)?host=\(socket)&port=\(server.port)"
            #expect(try PostgresLocation(percentEncoded).isUnixSocket)
            let overParameter = "postgres://\(server.user)@:\(server.port)/\(name)?host=\(socket)"
            #expect(try PostgresLocation(overParameter).configuration(defaultConnectTimeout: .seconds(1)).unixSocketPath
                == "\(socket)/.s.PGSQL.\(server.port)")
            #expect(throws: SceneStoreError.self) { try PostgresLocation(hostParameter) }  // port is given in the URL

            let local = try await SceneRegistry(postgres: percentEncoded, appID: "socket")
            let alsoLocal = try await SceneRegistry(postgres: overParameter, appID: "socket")
            let remote = try await SceneRegistry(postgres: database, appID: "socket")
            let id = SceneID("main")
            let (onSocket, alsoOnSocket, onTCP) = try await (local.store(for: id), alsoLocal.store(for: id), remote.store(for: id))
            try onSocket.set(1, forKey: "fromSocket")
            try await onSocket.flush()
            #expect(await onTCP.values(forKey: "fromSocket", default: 0).first(within: .seconds(60)) { $0 == 1 } == 1)
            try onTCP.set(2, forKey: "fromTCP")
            try await onTCP.flush()
            #expect(await onSocket.values(forKey: "fromTCP", default: 0).first(within: .seconds(60)) { $0 == 2 } == 2)
            #expect(await alsoOnSocket.values(forKey: "fromTCP", default: 0).first(within: .seconds(60)) { $0 == 2 } == 2)
            for registry in [local, alsoLocal, remote] { try await registry.close() }
        }
    }

    static let logger = Logger(label: "PostgresTransportTests")
}
#endif
