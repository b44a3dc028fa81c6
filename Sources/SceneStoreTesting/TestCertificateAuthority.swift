import Foundation
import SceneStore

/// A throwaway certificate authority, made with `openssl` in a directory
/// of the test's, and the server certificates it signs: for testing TLS
/// (`sslmode=verify-full&sslrootcert=...`) against a
/// ``TemporaryPostgresServer`` started with `tls: true`, which makes its own.
///
/// ```swift
/// let authority = try TestCertificateAuthority.make(in: directory)
/// let server = try authority.issue(named: "server", for: ["localhost"], addresses: ["127.0.0.1"])
/// ```
///
/// Keys are P-256, valid for two days; nothing here is fit to protect
/// anything but a test.
public struct TestCertificateAuthority: Sendable {
    /// Where its files are.
    public let directory: URL
    /// The authority's certificate (PEM): what `sslrootcert` names.
    public var certificate: URL { directory.appendingPathComponent("ca.crt") }
    private var key: URL { directory.appendingPathComponent("ca.key") }

    /// The `openssl` command this needs (Debian's `openssl` package).
    public static let openssl = "/usr/bin/openssl"

    /// Makes a new authority in `directory` (created if missing).
    public static func make(in directory: URL, name: String = "SceneStore test authority") throws -> TestCertificateAuthority {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let authority = TestCertificateAuthority(directory: directory)
        try authority.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=\(name)", "-keyout", "ca.key", "-out", "ca.crt",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        return authority
    }

    /// Issues a server certificate for the host `names` and IP
    /// `addresses`, as `<prefix>.crt` and `<prefix>.key` (mode 0600) in
    /// ``directory``.
    public func issue(named prefix: String, for names: [String], addresses: [String] = []) throws -> (certificate: URL, key: URL) {
        let alternatives = (names.map { "DNS:\($0)" } + addresses.map { "IP:\($0)" }).joined(separator: ",")
        let extensions = directory.appendingPathComponent("\(prefix).ext")
        try Data("subjectAltName=\(alternatives)\nextendedKeyUsage=serverAuth\n".utf8).write(to: extensions)
        try openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-subj", "/CN=\(names.first ?? addresses.first ?? "server")", "-keyout", "\(prefix).key", "-out", "\(prefix).csr",
        ])
        try openssl([
            "x509", "-req", "-in", "\(prefix).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-out", "\(prefix).crt", "-extfile", "\(prefix).ext",
        ])
        let key = directory.appendingPathComponent("\(prefix).key")
        try syscall("chmod", path: key.path) { chmod(key.path, 0o600) }
        return (directory.appendingPathComponent("\(prefix).crt"), key)
    }

    private func openssl(_ arguments: [String]) throws {
        do {
            _ = try runCommand([Self.openssl] + arguments, in: directory)
        } catch {
            throw Failure("openssl \(arguments.first ?? "") failed: \(error)")
        }
    }

    /// Why a certificate could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
