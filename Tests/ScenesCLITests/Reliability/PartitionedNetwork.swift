#if Postgres
import Foundation
import MultiProcessSupport
import SceneStore
import SceneStoreTesting

/// Hosts of a test's own: a server namespace and client namespaces (`ip
/// netns`), client *i* joined to the server by a veth pair on
/// 10.77.(*i*+1).0/24 (server .1, client .2). Cutting a link takes the
/// server's end down: the client's interface stays up and its packets
/// vanish, as across a broken network, rather than failing at once.
/// Needs root; only addresses inside the namespaces it made are used.
struct PartitionedNetwork {
    let server: String
    let clients: [String]
    private let tag: String

    /// Whether namespaces can be made here (root, and `ip` installed).
    static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip)
    }

    static let ip = "/usr/sbin/ip"

    /// Networks this process made: their names must differ.
    private static let made = Locked(0)

    /// Makes the namespaces and links; on failure removes what it made.
    static func make(clients count: Int) async throws -> PartitionedNetwork {
        let number = made.withLock { count in
            defer { count += 1 }
            return count
        }
        // Short: interface names hold 15 bytes.
        let tag = "sp\(getpid() % 100_000)n\(number)"
        let network = PartitionedNetwork(server: "\(tag)-srv", clients: (0..<count).map { "\(tag)-c\($0)" }, tag: tag)
        do {
            try await network.build()
        } catch {
            await network.remove()
            throw error
        }
        return network
    }

    /// The server's address as client `index` reaches it.
    func serverAddress(for index: Int) -> String { "10.77.\(index + 1).1" }

    /// The link to client `index` down: nothing passes either way.
    func cut(_ index: Int) async throws {
        try await run(["-n", server, "link", "set", serverLink(index), "down"])
    }

    func heal(_ index: Int) async throws {
        try await run(["-n", server, "link", "set", serverLink(index), "up"])
    }

    /// Deletes the namespaces (their links go with them).
    func remove() async {
        for namespace in [server] + clients {
            _ = try? await scenes(["-c", "\(Self.ip) netns delete \(namespace) 2>/dev/null"], root: URL(fileURLWithPath: "/"), program: .shell)
        }
    }

    private func serverLink(_ index: Int) -> String { "\(tag)s\(index)" }
    private func clientLink(_ index: Int) -> String { "\(tag)c\(index)" }

    private func build() async throws {
        try await run(["netns", "add", server])
        try await run(["-n", server, "link", "set", "lo", "up"])
        for (index, client) in clients.enumerated() {
            try await run(["netns", "add", client])
            try await run(["-n", client, "link", "set", "lo", "up"])
            try await run(["link", "add", serverLink(index), "netns", server, "type", "veth",
                           "peer", "name", clientLink(index), "netns", client])
            try await run(["-n", server, "addr", "add", "\(serverAddress(for: index))/24", "dev", serverLink(index)])
            try await run(["-n", client, "addr", "add", "10.77.\(index + 1).2/24", "dev", clientLink(index)])
            try await run(["-n", server, "link", "set", serverLink(index), "up"])
            try await run(["-n", client, "link", "set", clientLink(index), "up"])
        }
    }

    private func run(_ arguments: [String]) async throws {
        let result = try await scenes(["-c", "exec \"$0\" \"$@\"", Self.ip] + arguments, root: URL(fileURLWithPath: "/"), program: .shell)
        guard result.status == 0 else {
            throw NetworkFailure(description: "ip \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        }
    }

    struct NetworkFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// `scenes` (or `scenes-lab`) arguments run on client `index`'s host (`ip netns exec`),
    /// for ``scenes(_:root:stdin:program:workingDirectory:environment:)``
    /// with `program: .shell`.
    func onClient(_ index: Int, _ arguments: [String], program: ScenesProgram = .scenes) -> [String] {
        let executable = program == .lab ? "\"$(dirname \"$SCENES\")/scenes-lab\"" : "\"$SCENES\""
        return ["-c", "exec \(Self.ip) netns exec \"$0\" \(executable) \"$@\"", clients[index]] + arguments
    }
}
#endif
