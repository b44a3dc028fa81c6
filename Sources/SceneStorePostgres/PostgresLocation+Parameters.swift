#if Postgres
import Foundation
import SceneStore

extension PostgresLocation {
    /// The query parameters of a database URL, checked. Refusals name a
    /// parameter only when it is one of libpq's, and never show a value:
    /// a value may be a password, and a name without `=` may be one too.
    struct Parameters {
        /// `password`, for a URL whose user info has none.
        var password: String?
        var applicationName: String?
        var connectTimeout: Duration?
        /// `host`: a Unix-socket directory or a host name, for a URL whose
        /// authority names none (`postgres://user@/db?host=/var/run/postgresql`).
        var host: String?
        var sslmode: String?
        var sslrootcert: String?

        /// - Parameters:
        ///   - items: the URL's query items, percent-decoded.
        ///   - userInfoPassword: the password in the URL's user info, if any.
        ///   - invalid: the error for a reason.
        init(
            _ items: [URLQueryItem], userInfoPassword: String?, invalid: (String) -> SceneStoreError
        ) throws(SceneStoreError) {
            var seen: Set<String> = []
            for (index, item) in items.enumerated() {
                let name = item.name
                guard PostgresLocation.libpqParameters.contains(name) else {
                    throw invalid("""
                        query parameter \(index + 1) is not one libpq knows (its name is not shown: it may be a \
                        secret); \(PostgresLocation.supportedParameters)
                        """)
                }
                guard seen.insert(name).inserted else { throw invalid("parameter \(name) is given twice") }
                switch name {
                case "password":
                    guard userInfoPassword == nil else {
                        throw invalid("the password is given twice, in the user info and as ?password=; give it once")
                    }
                    guard let value = item.value else { throw invalid("password needs a value (?password=...)") }
                    password = value
                case "sslmode", "sslrootcert":
                    guard let value = item.value, !value.isEmpty, !value.utf8.contains(0) else {
                        throw invalid("\(name) needs a value")
                    }
                    if name == "sslmode" { sslmode = value } else { sslrootcert = value }
                case "host":
                    guard let value = item.value, !value.isEmpty else { throw invalid("host needs a value") }
                    host = value
                case "application_name":
                    guard let value = item.value, !value.utf8.contains(0) else {
                        throw invalid("application_name needs a value without NUL bytes")
                    }
                    applicationName = value
                case "connect_timeout":
                    guard let value = item.value, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                          let seconds = Int(value), (1...3600).contains(seconds)
                    else { throw invalid("connect_timeout takes whole seconds from 1 to 3600") }
                    connectTimeout = .seconds(seconds)
                case "hostaddr", "port", "dbname", "user":
                    throw invalid("parameter \(name) is not supported: give it in the URL itself")
                default:
                    throw invalid("parameter \(name) is not supported; \(PostgresLocation.supportedParameters)")
                }
            }
        }
    }

    static let supportedParameters =
        "a URL may carry password, host, sslmode, sslrootcert, application_name and connect_timeout"

    /// libpq's connection parameters (PostgreSQL 17): names that a message
    /// may show, as they are not secrets.
    static let libpqParameters: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
        "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name",
        "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
        "replication", "gssencmode", "sslmode", "requiressl", "sslnegotiation", "sslcompression", "sslcert",
        "sslkey", "sslpassword", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer",
        "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation",
        "service", "target_session_attrs", "load_balance_hosts",
    ]
}
#endif
