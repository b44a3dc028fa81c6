import Foundation

extension TemporaryPostgresServer {
    /// A network of a test's own for the server: a network namespace
    /// (`ip netns`, as root) whose interfaces the test set up, so that
    /// clients on other "hosts" (namespaces) reach it over links the test
    /// can cut and heal.
    package struct Network: Sendable {
        /// The namespace the server runs in.
        package let namespace: String
        /// Its addresses there, besides 127.0.0.1, that it listens on.
        package let addresses: [String]
        /// The clients it lets in (password authentication), as a CIDR block.
        package let clients: String

        package init(namespace: String, addresses: [String], clients: String) {
            self.namespace = namespace
            self.addresses = addresses
            self.clients = clients
        }

        /// Lets ``clients`` in, after `initdb` wrote `pg_hba.conf` for
        /// the loopback addresses only.
        func allowClients(in data: URL) throws {
            let rules = data.appendingPathComponent("pg_hba.conf")
            let handle = try FileHandle(forWritingTo: rules)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("host all all \(clients) scram-sha-256\n".utf8))
        }
    }

    /// Creates and starts a cluster inside `network`.
    package static func start(in network: Network) throws -> TemporaryPostgresServer {
        try start(durable: false, tls: false, network: network)
    }

    /// ``url(database:)`` at `address` instead of 127.0.0.1.
    package func url(database: String, address: String) -> String {
        url(database: database).replacingOccurrences(of: "@127.0.0.1:", with: "@\(address):")
    }
}
