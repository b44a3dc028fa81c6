import Foundation
import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of a test's own, for apps that keep scenes in a
/// database (`SceneRegistry(postgres:appID:)`): a new cluster (`initdb`)
/// in a new temporary directory, listening only on 127.0.0.1 on a free
/// port, its Unix socket in that directory too; never the system's cluster.
/// PostgreSQL refuses to run as root, so as root every server command runs
/// as the `postgres` user (`runuser`), which owns the directory.
///
/// ```swift
/// let server = try TemporaryPostgresServer.start()
/// defer { server.destroy() }
/// let scenes = try await SceneRegistry(postgres: try server.createDatabase(), appID: "com.example.editor")
/// ```
///
/// A server nobody destroys is destroyed when the test process exits; the
/// servers of a run that was interrupted or killed are stopped, and their
/// directories deleted, by the next `start()` on the machine.
///
/// Authentication over TCP is SCRAM with a password that needs
/// percent-encoding in a URL. Needs Debian's `postgresql` package (the
/// binaries in `/usr/lib/postgresql/*/bin`); ``isAvailable`` says whether
/// they are there.
public final class TemporaryPostgresServer: Sendable {
    /// The binaries of the newest PostgreSQL installed Debian's way, or
    /// `nil` (then the suites are skipped; `.ci/deps --test` installs them).
    public static let binDirectory: URL? = {
        let base = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().lazy
            .map { base.appendingPathComponent("\($0)/bin") }
            .first { bin in
                ["initdb", "pg_ctl", "postgres"].allSatisfy {
                    FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent($0).path)
                }
            }
    }()

    /// Whether a server can be started here: the binaries are there, and
    /// as root the `postgres` user to run them exists.
    public static let isAvailable = binDirectory != nil && (getuid() != 0 || getpwnam(serverUser) != nil)

    /// The operating-system user the server runs as when the tests run as root.
    public static let serverUser = "postgres"
    /// The database role the tests connect as.
    public let user = "scenestore"
    /// Its password, with characters a URL must escape.
    public let password = "p@ss:w/rd%"
    /// The temporary directory holding the cluster, its socket and its log.
    public let root: URL
    /// The loopback TCP port the server listens on.
    public let port: Int

    private var data: URL { root.appendingPathComponent("data") }

    /// Whether commits reach the disk (`fsync` on); tests usually do not
    /// need it, benchmarks do.
    public let durable: Bool
    /// Whether the server takes TLS connections, with a certificate for
    /// `localhost` and `127.0.0.1` that ``certificateAuthority`` signed.
    public let tls: Bool

    /// The authority that signed the server's certificate, when ``tls``:
    /// its ``TestCertificateAuthority/certificate`` is what a client's
    /// `sslrootcert` names.
    public var certificateAuthority: TestCertificateAuthority? {
        tls ? TestCertificateAuthority(directory: tlsDirectory) : nil
    }

    private var tlsDirectory: URL { root.appendingPathComponent("tls") }

    /// The network of the test's own the server runs in, if any.
    let network: Network?

    init(root: URL, port: Int, durable: Bool, tls: Bool = false, network: Network? = nil) {
        self.root = root
        self.port = port
        self.durable = durable
        self.tls = tls
        self.network = network
    }

    /// `postgres://scenestore:<password>@127.0.0.1:<port>/<database>`.
    public func url(database: String = "postgres") -> String {
        let allowed = CharacterSet.alphanumerics
        let encoded = password.addingPercentEncoding(withAllowedCharacters: allowed) ?? password
        return "postgres://\(user):\(encoded)@127.0.0.1:\(port)/\(database)"
    }

    /// `postgres://scenestore@<socket directory>:<port>/<database>`: the
    /// server's Unix socket, its directory percent-encoded as the host
    /// (local connections need no password).
    public func socketURL(database: String = "postgres") -> String {
        let directory = root.appendingPathComponent("socket").path
        let host = directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? directory
        return "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// Creates and starts a cluster; on failure removes what it made.
    /// - Parameters:
    ///   - durable: `fsync` as a production server does; off by default,
    ///     which makes tests faster and changes nothing they check.
    ///   - tls: the server also takes TLS connections (``certificateAuthority``).
    public static func start(durable: Bool = false, tls: Bool = false) throws -> TemporaryPostgresServer {
        try start(durable: durable, tls: tls, network: nil)
    }

    static func start(durable: Bool, tls: Bool, network: Network?) throws -> TemporaryPostgresServer {
        let bin = try Self.bin()
        removeAbandoned()
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("scenestore-pg-XXXXXX").utf8CString)
        let made = try syscall("mkdtemp", path: NSTemporaryDirectory()) { mkdtemp(&template) }
        let root = URL(fileURLWithPath: String(cString: made))
        do {
            try claim(root)
        } catch {
            try? FileManager.default.removeItem(at: root)
            throw error
        }
        var lastError: (any Error)?
        // A free port can be taken by someone else before the server binds it.
        for _ in 0..<3 {
            let server = TemporaryPostgresServer(
                root: root, port: try freePort(), durable: durable, tls: tls, network: network)
            do {
                try server.initialize(bin: bin)
                try server.run(bin, "pg_ctl", ["start", "-w", "-t", "60", "-D", server.data.path,
                                               "-l", root.appendingPathComponent("server.log").path,
                                               "-o", server.serverOptions])
                server.destroyAtExit()
                return server
            } catch {
                lastError = error
                _ = try? server.run(bin, "pg_ctl", ["stop", "-m", "immediate", "-D", server.data.path])
                try? FileManager.default.removeItem(at: server.data)
            }
        }
        try? FileManager.default.removeItem(at: root)
        throw lastError ?? Failure("the server did not start")
    }

    private var serverOptions: String {
        let socket = root.appendingPathComponent("socket").path
        let certificate = tlsDirectory.appendingPathComponent("server")
        let listen = (["127.0.0.1"] + (network?.addresses ?? [])).joined(separator: ",")
        return "-c listen_addresses=\(listen) -c port=\(port) -c unix_socket_directories=\(socket) "
            + (durable ? "" : "-c fsync=off ") + "-c max_connections=60"
            + (tls ? " -c ssl=on -c ssl_cert_file=\(certificate.path).crt -c ssl_key_file=\(certificate.path).key" : "")
    }

    private func initialize(bin: URL) throws {
        let passwordFile = root.appendingPathComponent("password")
        try Data((password + "\n").utf8).write(to: passwordFile)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("socket"), withIntermediateDirectories: true)
        // As root, the server user must own what the server reads.
        var serverFiles = [root.path, passwordFile.path, root.appendingPathComponent("socket").path]
        if tls {
            let authority = try TestCertificateAuthority.make(in: tlsDirectory, name: "SceneStore test server authority")
            let files = try authority.issue(named: "server", for: ["localhost"], addresses: ["127.0.0.1"])
            serverFiles += [tlsDirectory.path, files.certificate.path, files.key.path]
        }
        if getuid() == 0 {
            guard let account = getpwnam(Self.serverUser) else { throw Failure("no user \(Self.serverUser)") }
            let (uid, gid) = (account.pointee.pw_uid, account.pointee.pw_gid)
            for path in serverFiles { try syscall("chown", path: path) { chown(path, uid, gid) } }
        }
        try run(bin, "initdb", ["-D", data.path, "-U", user, "--pwfile=\(passwordFile.path)",
                                "--auth-local=trust", "--auth-host=scram-sha-256",
                                "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"])
        if let network { try network.allowClients(in: data) }
    }

    /// `pg_ctl restart`: every connection is dropped, the port stays.
    public func restart() throws {
        try run(Self.bin(), "pg_ctl", ["restart", "-w", "-t", "60", "-m", "fast", "-D", data.path,
                                       "-l", root.appendingPathComponent("server.log").path,
                                       "-o", serverOptions])
    }

    /// `pg_ctl stop -m immediate`: the server is gone at once.
    public func stop() throws {
        try run(Self.bin(), "pg_ctl", ["stop", "-m", "immediate", "-D", data.path])
    }

    /// Stops the server if it runs and deletes its directory. A server
    /// nobody destroys is destroyed when the process exits.
    public func destroy() {
        if FileManager.default.fileExists(atPath: data.appendingPathComponent("postmaster.pid").path) {
            _ = try? stop()
        }
        try? FileManager.default.removeItem(at: root)
        destroyed()
    }

    /// The postmaster's pid, from its pid file.
    public func postmasterPID() throws -> pid_t {
        let text = try String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)
        guard let line = text.split(separator: "\n").first, let pid = pid_t(line) else {
            throw Failure("unreadable postmaster.pid")
        }
        return pid
    }

    /// Runs `tool` (as the server user when root) and waits for it.
    @discardableResult
    private func run(_ bin: URL, _ tool: String, _ arguments: [String]) throws -> String {
        let command = [bin.appendingPathComponent(tool).path] + arguments
        let asServerUser = getuid() == 0 ? ["/usr/sbin/runuser", "-u", Self.serverUser, "--"] + command : command
        let argv = network.map { ["/usr/sbin/ip", "netns", "exec", $0.namespace] + asServerUser } ?? asServerUser
        do {
            return try runCommand(argv, in: root)
        } catch let failure as CommandFailure {
            throw Failure("\(tool) \(arguments.first ?? "") failed: \(failure)")
        }
    }

    private static func bin() throws -> URL {
        guard let bin = binDirectory else { throw Failure("no PostgreSQL binaries in /usr/lib/postgresql") }
        return bin
    }

    /// Why the server could not be started or driven.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

extension TemporaryPostgresServer {
    /// The postmaster and every process it started (backends, workers).
    public func allPIDs() throws -> [pid_t] {
        let parent = try postmasterPID()
        let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        return [parent] + children.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

extension TemporaryPostgresServer {
    /// A TCP port on 127.0.0.1 that nothing listens on right now (for a
    /// test that needs an address where no server answers).
    public static func freePort() throws -> Int {
        let fd = try syscall("socket", path: "127.0.0.1") { socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { (pointer) throws(SceneStoreError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(SceneStoreError) in
                try syscall("bind", path: "127.0.0.1") { bind(fd, raw, length) }
                try syscall("getsockname", path: "127.0.0.1") { getsockname(fd, raw, &length) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Creates a new, empty database (`createdb` over the server's own
    /// socket) and returns its URL: one per test keeps tests apart.
    public func createDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try run(Self.bin(), "createdb", ["-h", root.appendingPathComponent("socket").path, "-p", "\(port)", "-U", user, name])
        return url(database: name)
    }
}
