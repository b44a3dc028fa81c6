import Foundation
import SceneStore
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// No test run leaves a server behind, without a process that outlives the
/// test process:
/// * the servers a process started and did not ``TemporaryPostgresServer/destroy()``
///   (a suite's shared server) are destroyed when it exits (`atexit`),
///   also after a failed test;
/// * a run that was interrupted (Ctrl-C reaches the server too, which
///   shuts down) or killed leaves its directories, each naming its owner
///   (pid and start time); the next ``TemporaryPostgresServer/start(durable:tls:)``
///   anywhere on the machine stops the servers of owners that are gone and
///   deletes their directories.
extension TemporaryPostgresServer {
    /// Servers this process started and has not destroyed, by directory.
    private static let undestroyed = Locked<[String: TemporaryPostgresServer]>([:])

    /// Registers ``destroyUndestroyed()`` with `atexit`, once.
    private static let exitHook: Void = {
        atexit { TemporaryPostgresServer.destroyUndestroyed() }
    }()

    /// The file in a server's directory naming the process that owns it.
    static let ownerFileName = "owner"

    /// Writes this process as the owner of `root` (right after making it:
    /// a directory without an owner is never swept).
    static func claim(_ root: URL) throws {
        try Data(ProcessIdentity.current.description.utf8).write(to: root.appendingPathComponent(ownerFileName))
    }

    /// This server is destroyed when the process exits, unless ``destroy()`` ran before.
    func destroyAtExit() {
        _ = Self.exitHook
        Self.undestroyed.withLock { $0[root.path] = self }
    }

    /// ``destroy()`` ran: nothing left to do at exit.
    func destroyed() {
        Self.undestroyed.withLock { $0[root.path] = nil }
    }

    private static func destroyUndestroyed() {
        let servers = undestroyed.withLock { servers in
            defer { servers = [:] }
            return Array(servers.values)
        }
        for server in servers { server.destroy() }
    }

    /// Stops the servers, and deletes the directories, of owners that are
    /// gone (a run killed or interrupted). Directories of running
    /// processes, and directories without an owner, are left alone.
    static func removeAbandoned() {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("scenestore-pg-") {
            let root = temporary.appendingPathComponent(name)
            guard let text = try? String(contentsOf: root.appendingPathComponent(ownerFileName), encoding: .utf8),
                  let owner = ProcessIdentity(text), !owner.isRunning else { continue }
            TemporaryPostgresServer(root: root, port: 0, durable: false).destroy()
        }
    }
}

/// A process as the kernel knows it: its pid and when it started, so that
/// a pid used again by a later process is not taken for it.
struct ProcessIdentity: Equatable, CustomStringConvertible {
    let pid: pid_t
    /// Clock ticks after boot (field 22 of `/proc/<pid>/stat`).
    let startTime: UInt64

    static var current: ProcessIdentity {
        ProcessIdentity(pid: getpid(), startTime: startTime(of: getpid()) ?? 0)
    }

    init(pid: pid_t, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }

    /// Reads ``description``: `<pid> <start time>`.
    init?(_ text: String) {
        let fields = text.split(separator: " ")
        guard fields.count == 2, let pid = pid_t(fields[0]), pid > 0, let start = UInt64(fields[1]) else { return nil }
        self.init(pid: pid, startTime: start)
    }

    var description: String { "\(pid) \(startTime)" }

    /// Whether this very process still runs (a zombie counts as gone).
    var isRunning: Bool {
        // Alive unless gone (`EPERM`: another user's, alive).
        guard (try? syscall("kill", path: "pid \(pid)", unless: .notPermitted) { kill(pid, 0) }) != nil else { return false }
        return Self.startTime(of: pid) == startTime
    }

    /// The start time in `/proc/<pid>/stat`; `nil` if the process is gone
    /// or a zombie.
    private static func startTime(of pid: pid_t) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")") else { return nil }
        // After the name: state (field 3) ... start time (field 22).
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 19, fields[0] != "Z" else { return nil }
        return UInt64(fields[19])
    }
}
