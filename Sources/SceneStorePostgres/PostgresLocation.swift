#if Postgres
import Foundation
import PostgresNIO
import SceneStore

/// A database URL taken apart, as libpq takes it:
/// `postgres://user:password@host:port/database?parameters` (`postgresql://`
/// too; the port defaults to 5432, the password may be absent).
///
/// * A host that starts with `/` once percent-decoded
///   (`postgres://app@%2Fvar%2Frun%2Fpostgresql/db`, or
///   `postgres://app@/db?host=/var/run/postgresql`) is the directory of the
///   server's Unix socket, `<directory>/.s.PGSQL.<port>`.
/// * Query parameters: `password` (when the user info has none), `host`
///   (when the URL names none), `sslmode` and `sslrootcert` (see
///   ``TLSMode``; `prefer` by default, as libpq), `application_name`
///   (default `SceneStore`) and `connect_timeout` (whole seconds, 1 to
///   3600; default: the storage's request timeout). Any other parameter is
///   refused.
///
/// Neither ``description`` nor any error this type throws shows a
/// password or a query value, parsed or not (see ``shown(_:_:)``).
struct PostgresLocation: Sendable, CustomStringConvertible {
    /// The host name or address (an IPv6 literal without its brackets), or
    /// the directory of the server's Unix socket.
    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String
    /// What the server shows in `pg_stat_activity`.
    let applicationName: String
    /// `connect_timeout`, if the URL gave one.
    let connectTimeout: Duration?
    /// TLS over TCP.
    let tls: TLSMode
    /// The TLS context ``tls`` needs, made once.
    let tlsContext: NIOSSLContext?

    static let defaultApplicationName = "SceneStore"

    /// Whether ``host`` names a Unix-socket directory, not a TCP host.
    var isUnixSocket: Bool { host.hasPrefix("/") }

    /// The URL without its password and parameters, for messages and logs.
    var description: String {
        let hostPart: String
        if isUnixSocket {
            hostPart = host.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? host
        } else {
            hostPart = host.contains(":") ? "[\(host)]" : host
        }
        return "postgres://\(user)@\(hostPart):\(port)/\(database)"
    }

    /// Parses `url`.
    /// - Throws: ``SceneStoreError/invalidStorageLocation(_:reason:)``,
    ///   naming the URL without its password or any query value.
    init(_ url: String) throws(SceneStoreError) {
        guard let parts = URLComponents(string: url) else {
            throw .invalidStorageLocation(
                Self.redacted(url),
                reason: "not a URL (percent-encode reserved characters such as @ : / ? # in the user name and password)")
        }
        let display = Self.shown(url, parts)
        func invalid(_ reason: String) -> SceneStoreError { .invalidStorageLocation(display, reason: reason) }

        guard let scheme = parts.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        let parameters = try Parameters(parts.queryItems ?? [], userInfoPassword: parts.password, invalid: invalid)
        var host: String
        switch (parts.host.flatMap { $0.isEmpty ? nil : $0 }, parameters.host) {
        case (let named?, nil): host = named
        case (nil, let given?): host = given
        case (nil, nil): throw invalid("no host")
        case (_?, _?): throw invalid("the host is given twice, in the URL and as ?host=; give it once")
        }
        guard let user = parts.user, !user.isEmpty else { throw invalid("no user name") }
        let port = parts.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        var path = parts.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.isEmpty, !path.contains("/") else { throw invalid("the path must name one database") }
        guard parts.fragment == nil else { throw invalid("a URL fragment is not allowed") }
        // Brackets of an IPv6 literal are not part of the address.
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.contains("/") {
            guard host.hasPrefix("/") else {
                throw invalid("a Unix-socket host must be an absolute directory (percent-encoded: %2Fvar%2Frun%2Fpostgresql)")
            }
            // sockaddr_un's sun_path holds 108 bytes with the final NUL.
            guard "\(host)/.s.PGSQL.\(port)".utf8.count < 108 else {
                throw invalid("the Unix-socket path is longer than the 107 bytes a socket address holds")
            }
        }
        guard !host.utf8.contains(0) else { throw invalid("the host holds a NUL byte") }
        let requested = try TLSMode.parse(
            sslmode: parameters.sslmode, sslrootcert: parameters.sslrootcert, invalid: invalid)
        // A Unix socket is local: no TLS on it, as libpq.
        let tls = host.hasPrefix("/") ? .disable : requested
        self.host = host
        self.port = port
        self.user = user
        self.password = parts.password ?? parameters.password
        self.database = path
        self.applicationName = parameters.applicationName ?? Self.defaultApplicationName
        self.connectTimeout = parameters.connectTimeout
        self.tls = tls
        self.tlsContext = try tls.context(invalid: invalid)
    }

    /// How long a connect may take: `connect_timeout` if the URL gave one,
    /// else `defaultTimeout`.
    func connectTimeout(default defaultTimeout: Duration) -> Duration {
        connectTimeout ?? defaultTimeout
    }

    /// postgres-nio's configuration for this location, a connect taking at
    /// most ``connectTimeout(default:)``; with `lockTimeout`, the
    /// connection's `lock_timeout`, set by the startup message (no round
    /// trip of its own).
    func configuration(defaultConnectTimeout: Duration, lockTimeout: Duration? = nil) -> PostgresConnection.Configuration {
        var configuration = isUnixSocket
            ? PostgresConnection.Configuration(
                unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            : PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database,
                tls: tls.postgresTLS(tlsContext))
        configuration.options.connectTimeout = TimeAmount(connectTimeout(default: defaultConnectTimeout))
        configuration.options.additionalStartupParameters = startupParameters(lockTimeout: lockTimeout)
        return configuration
    }

    /// What each connection's startup message sets: `application_name`,
    /// and with `lockTimeout` the connection's `lock_timeout` (no round
    /// trip of its own).
    private func startupParameters(lockTimeout: Duration?) -> [(String, String)] {
        [("application_name", applicationName)]
            + (lockTimeout.map { [("lock_timeout", "\($0.wholeMilliseconds)ms")] } ?? [])
    }

    /// RFC 3986's unreserved characters: all a percent-encoded host keeps.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

extension Duration {
    /// The duration in whole milliseconds, at least 1.
    var wholeMilliseconds: Int {
        max(1, nanoseconds / 1_000_000)
    }
}
#endif
