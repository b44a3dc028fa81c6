#if Postgres
import Foundation
import PostgresNIO
import SceneStore

/// A database URL taken apart: `postgres://user:password@host:port/database`
/// (`postgresql://` too; the port defaults to 5432, the password may be
/// absent). TLS is not supported yet: `sslmode`, if given, must be
/// `disable`; no other query parameter is accepted.
struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String

    /// The URL without its password, for messages and logs.
    var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(hostPart):\(port)/\(database)"
    }

    /// Parses `url`.
    /// - Throws: ``SceneStoreError/invalidStorageLocation(_:reason:)``,
    ///   naming the URL without its password.
    init(_ url: String) throws(SceneStoreError) {
        guard let parts = URLComponents(string: url) else {
            throw .invalidStorageLocation(Self.redacted(url), reason: "not a URL")
        }
        var shown = parts
        if shown.password != nil { shown.password = nil }
        let display = shown.string ?? Self.redacted(url)
        func invalid(_ reason: String) -> SceneStoreError { .invalidStorageLocation(display, reason: reason) }

        guard let scheme = parts.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let host = parts.host, !host.isEmpty else { throw invalid("no host") }
        guard let user = parts.user, !user.isEmpty else { throw invalid("no user name") }
        let port = parts.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        var path = parts.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.isEmpty, !path.contains("/") else { throw invalid("the path must name one database") }
        for item in parts.queryItems ?? [] {
            guard item.name == "sslmode", item.value == "disable" else {
                throw invalid("unsupported parameter \(item.name)=\(item.value ?? ""); only sslmode=disable is")
            }
        }
        guard parts.fragment == nil else { throw invalid("a URL fragment is not allowed") }
        // Brackets of an IPv6 literal are not part of the address.
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.user = user
        self.password = parts.password
        self.database = path
    }

    /// postgres-nio's configuration for this location.
    func configuration(connectTimeout: Duration) -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable
        )
        configuration.options.connectTimeout = .nanoseconds(connectTimeout.nanoseconds)
        configuration.options.additionalStartupParameters = [("application_name", "SceneStore")]
        return configuration
    }

    /// `url` with anything between `//` and `@` past a `:` removed, for a
    /// string that does not even parse.
    private static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let slashes = url.range(of: "//"),
              slashes.upperBound < at,
              let colon = url[slashes.upperBound..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<colon]) + String(url[at...])
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }

    /// The duration in whole milliseconds, at least 1.
    var wholeMilliseconds: Int64 {
        max(1, nanoseconds / 1_000_000)
    }
}
#endif
