#if Postgres
import Foundation
import NIOCore
import PostgresNIO
import SceneStore

extension PostgresLocation {
    /// TLS to the server, from `sslmode` and `sslrootcert` as libpq takes
    /// them, through swift-nio-ssl. Only over TCP: a Unix socket is local,
    /// and libpq does not use TLS on one either.
    enum TLSMode: Equatable, Sendable {
        /// `sslmode=disable`: never.
        case disable
        /// `sslmode=prefer` (libpq's default, and this storage's): TLS when
        /// the server offers it, its certificate not checked.
        case prefer
        /// `sslmode=require` without `sslrootcert`: TLS or no connection,
        /// the certificate not checked (it protects against eavesdropping,
        /// not against a server that is not the right one).
        case require
        /// `sslmode=verify-ca`, or `require` with `sslrootcert`: the
        /// certificate must chain to `roots`.
        case verifyCA(roots: TrustRoots)
        /// `sslmode=verify-full`: as `verifyCA`, and the certificate must
        /// name the URL's host as written, as libpq 14 and later: a name
        /// among its DNS names, an IP literal among its IP addresses (see
        /// ``CertificateNames``). The check is ours (``ServerNameCheck``):
        /// swift-nio-ssl's would also take, for a name, an IP address of
        /// the certificate that is the address connected to.
        case verifyFull(roots: TrustRoots)

        /// Where trusted certificates come from.
        enum TrustRoots: Equatable, Sendable {
            /// `sslrootcert=<path>`: a PEM file of one or more certificates.
            case file(String)
            /// `sslrootcert=system`: the system's trusted certificates.
            case system
        }

        /// The mode `sslmode` (absent: `prefer`) and `sslrootcert` name.
        static func parse(
            sslmode: String?, sslrootcert: String?, invalid: (String) -> SceneStoreError
        ) throws(SceneStoreError) -> TLSMode {
            let roots: TrustRoots? = sslrootcert.map { $0 == "system" ? .system : .file($0) }
            if case .file(let path)? = roots, !path.hasPrefix("/") {
                // Neither the path nor any other value is shown: a value may be a secret.
                throw invalid("sslrootcert must be an absolute path to a PEM file, or system")
            }
            switch sslmode ?? "prefer" {
            case "disable":
                return .disable
            case "allow":
                throw invalid("sslmode=allow is not supported (it tries without TLS first): use prefer or disable")
            case "prefer":
                return .prefer
            case "require":
                return roots.map { .verifyCA(roots: $0) } ?? .require
            case "verify-ca", "verify-full":
                guard let roots else {
                    throw invalid("sslmode verify-ca and verify-full need sslrootcert (a PEM file of the trusted certificates, or system)")
                }
                return sslmode == "verify-ca" ? .verifyCA(roots: roots) : .verifyFull(roots: roots)
            default:
                throw invalid("sslmode takes disable, prefer, require, verify-ca or verify-full")
            }
        }

        /// The client TLS configuration this mode needs (`nil`: no TLS)
        /// and its context, made once: trusted certificates are read now,
        /// so a missing or unreadable file is an error of the URL, not of
        /// every connection.
        func context(invalid: (String) -> SceneStoreError) throws(SceneStoreError) -> NIOSSLContext? {
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch self {
            case .disable:
                return nil
            case .prefer, .require:
                configuration.certificateVerification = .none
            case .verifyCA(let roots), .verifyFull(let roots):
                // verify-full's host: ServerNameCheck.
                configuration.certificateVerification = .noHostnameVerification
                configuration.trustRoots = try Self.trustRoots(roots, invalid: invalid)
            }
            do {
                return try NIOSSLContext(configuration: configuration)
            } catch {
                throw invalid("TLS cannot be set up: \(error)")
            }
        }

        private static func trustRoots(_ roots: TrustRoots, invalid: (String) -> SceneStoreError) throws(SceneStoreError) -> NIOSSLTrustRoots {
            switch roots {
            case .system:
                return .default
            case .file(let path):
                let certificates: [NIOSSLCertificate]
                do {
                    certificates = try NIOSSLCertificate.fromPEMBytes(Array(try regularFile(path, invalid: invalid)))
                } catch let error as SceneStoreError {
                    throw error
                } catch {
                    throw invalid("sslrootcert names no file that can be read as PEM certificates")
                }
                guard !certificates.isEmpty else { throw invalid("sslrootcert names a file that holds no certificate") }
                return .certificates(certificates)
            }
        }

        /// The bytes of the file at `path`, opened without blocking (a FIFO
        /// there would block the open until a writer came) and read only if
        /// it is a regular file.
        private static func regularFile(_ path: String, invalid: (String) -> SceneStoreError) throws(SceneStoreError) -> Data {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { throw invalid("sslrootcert names no file that can be read as PEM certificates") }
            let file = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw invalid("sslrootcert names something other than a regular file")
            }
            do {
                return try file.readToEnd() ?? Data()
            } catch {
                throw invalid("sslrootcert names no file that can be read as PEM certificates")
            }
        }

        /// postgres-nio's connection setting for this mode and `context`.
        func postgresTLS(_ context: NIOSSLContext?) -> PostgresConnection.Configuration.TLS {
            guard let context else { return .disable }
            return self == .prefer ? .prefer(context) : .require(context)
        }
    }
}
#endif
