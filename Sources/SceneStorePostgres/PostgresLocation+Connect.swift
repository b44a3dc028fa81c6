#if Postgres
import Glibc
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import SceneStore

extension PostgresLocation {
    /// A connection to the server, `timeout` bounding the connect (unless
    /// the URL's `connect_timeout` does). Under `verify-full` the channel
    /// is ours, handed to postgres-nio: swift-nio-ssl checks the chain
    /// and ``ServerNameCheck`` the host, before the startup message (the
    /// user name) or a password is sent.
    func connect(
        on eventLoop: any EventLoop, timeout: Duration, lockTimeout: Duration?, id: Int, logger: Logger
    ) -> EventLoopFuture<PostgresConnection> {
        let configuration = configuration(defaultConnectTimeout: timeout, lockTimeout: lockTimeout)
        guard case .verifyFull = tls, let context = tlsContext else {
            return PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
        }
        let refusal = NIOLockedValueBox<String?>(nil)
        let host = host
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(configuration.options.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ServerNameCheck(host: host, refusal: refusal))
                }
            }
            .connect(host: host, port: port)
            .flatMap { channel in
                var established = PostgresConnection.Configuration(
                    establishedChannel: channel, tls: .require(context), username: user, password: password, database: database)
                established.options = configuration.options
                // Server Name Indication: a name, never an address (RFC 6066).
                established.options.tlsServerName = ipAddressBytes(host) == nil ? host : nil
                return PostgresConnection.connect(on: eventLoop, configuration: established, id: id, logger: logger)
                    .flatMapErrorThrowing { error in
                        if let reason = refusal.withLockedValue({ $0 }) { throw ServerNameRefused(reason: reason) }
                        throw error
                    }
            }
    }
}

/// Why `verify-full` refused a server's certificate.
struct ServerNameRefused: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// Checks, at the first write after the server's certificate arrived
/// (in the handshake, before any of postgres-nio's own), that the
/// certificate names the host as the URL writes it, as libpq does; else
/// lets no byte more out and closes the connection. The chain was checked
/// by swift-nio-ssl.
final class ServerNameCheck: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny
    private let host: String
    private let refusal: NIOLockedValueBox<String?>
    private var refused: ServerNameRefused?

    init(host: String, refusal: NIOLockedValueBox<String?>) {
        self.host = host
        self.refusal = refusal
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let refused { return promise?.fail(refused) ?? () }
        guard let tls = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self),
            let certificate = tls.peerCertificate
        else { return context.write(data, promise: promise) }
        if CertificateNames(certificate).match(host) {
            context.write(data, promise: promise)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        let refused = ServerNameRefused(
            reason: "the server's certificate does not name \(host) (verify-full checks the host as the URL writes it)")
        self.refused = refused
        refusal.withLockedValue { $0 = refused.reason }
        promise?.fail(refused)
        // On the loop's next turn: postgres-nio stops the process at a
        // precondition when the channel closes before swift-nio-ssl has
        // told it the handshake completed, which it does after this write.
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.execute { bound.value.close(promise: nil) }
    }
}

/// The names a certificate's subject alternative names give, matched as
/// libpq matches them (`verify-full`): DNS names against the host as
/// written (a leftmost `*` label stands for one label, case ignored), IP
/// addresses against an IP literal's bytes. A certificate without such
/// names is refused: libpq then falls back to the subject's common name,
/// which swift-nio-ssl does not make public (and public CAs have put
/// every name in subject alternative names since 2012).
struct CertificateNames {
    var dnsNames: [String] = []
    var addresses: [[UInt8]] = []

    init(dnsNames: [String] = [], addresses: [[UInt8]] = []) {
        self.dnsNames = dnsNames
        self.addresses = addresses
    }

    init(_ certificate: NIOSSLCertificate) {
        for name in certificate._subjectAlternativeNames() {
            switch name.nameType {
            case .dnsName: dnsNames.append(String(decoding: name.contents, as: UTF8.self))
            case .ipAddress: addresses.append(Array(name.contents))
            default: continue
            }
        }
    }

    func match(_ host: String) -> Bool {
        if dnsNames.contains(where: { Self.match(name: $0, host: host) }) { return true }
        return ipAddressBytes(host).map(addresses.contains) ?? false
    }

    private static func match(name: String, host: String) -> Bool {
        let name = name.lowercased(), host = host.lowercased()
        guard name.hasPrefix("*.") else { return name == host }
        guard let dot = host.firstIndex(of: "."), dot != host.startIndex else { return false }
        return host[dot...] == name.dropFirst()
    }
}

/// The bytes of an IPv4 or IPv6 literal (`nil`: not one).
func ipAddressBytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr(), v6 = in6_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
    return nil
}
#endif
