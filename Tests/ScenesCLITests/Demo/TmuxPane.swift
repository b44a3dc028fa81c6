import Foundation
import MultiProcessSupport

/// A shell in a detached tmux session on a private server (its own `-L`
/// socket), for driving the interactive `scenes run` as a user would.
/// ``stop()`` kills the server; so does deinit, as a fallback.
final class TmuxPane: Sendable {
    let socket: String

    static var isAvailable: Bool {
        (try? TmuxPane.run(["-V"])) != nil
    }

    init(columns: Int = 100, rows: Int = 30) throws {
        socket = "scenes-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        // The server this starts keeps the client's stdout: never a pipe here.
        try tmux(captureOutput: false, ["-f", "/dev/null", "new-session", "-d", "-s", "demo", "-x", "\(columns)", "-y", "\(rows)",
                  "env", "PS1=$ ", "sh"])
    }

    /// Types `text` literally, then Enter.
    func typeLine(_ text: String) throws {
        try tmux(["send-keys", "-t", "demo", "-l", text])
        try tmux(["send-keys", "-t", "demo", "Enter"])
    }

    /// Sends tmux key names (`Enter`, `Down`, `j`, ...).
    func press(_ keys: String...) throws {
        try tmux(["send-keys", "-t", "demo"] + keys)
    }

    /// The visible pane, as text.
    func capture() throws -> String {
        try tmux(["capture-pane", "-p", "-t", "demo"])
    }

    /// The visible pane, or an empty string if tmux cannot say (for messages).
    var screen: String {
        (try? capture()) ?? ""
    }

    /// Whether the program in the pane has the alternate screen on.
    func alternateScreenIsOn() throws -> Bool {
        try tmux(["display-message", "-p", "-t", "demo", "#{alternate_on}"]).hasPrefix("1")
    }

    /// The pid of the program the shell in the pane is running, if any.
    func foregroundPID() throws -> Int32? {
        let shell = try tmux(["display-message", "-p", "-t", "demo", "#{pane_pid}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        return children?.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Polls the pane until `predicate` holds for its text, or `timeout`
    /// passes (`nil` then). Waiting on another program's screen has no
    /// stream to wait on; the deadline only bounds a failing test.
    func waitFor(
        timeout: Duration = .seconds(30), _ predicate: (String) throws -> Bool
    ) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let screen = try capture()
            if try predicate(screen) { return screen }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Waits until the pane shows every one of `texts`.
    func waitFor(_ texts: String..., timeout: Duration = .seconds(30)) async throws -> String? {
        try await waitFor(timeout: timeout) { screen in texts.allSatisfy(screen.contains) }
    }

    /// Kills the private tmux server and everything running in it.
    func stop() {
        _ = try? tmux(captureOutput: false, ["kill-server"])
    }

    deinit {
        stop()
    }

    @discardableResult
    private func tmux(captureOutput: Bool = true, _ arguments: [String]) throws -> String {
        try Self.run(["-L", socket] + arguments, captureOutput: captureOutput)
    }

    /// Runs tmux through ``spawnChild(_:_:environment:descriptors:workingDirectory:searchPath:)``:
    /// every signal unblocked and at its default action (a server forked
    /// from a test thread, which blocks most signals, would otherwise never
    /// reap its panes nor obey `kill-server`), and no descriptor of the
    /// test process inherited (the server outlives this call; a pipe or
    /// socket of another test's child kept open by it would stall that test).
    private static func run(_ arguments: [String], captureOutput: Bool = true) throws -> String {
        let output = try cloexecPipe()
        let pid: pid_t
        do {
            pid = try spawnChild(
                "tmux", arguments, environment: ProcessInfo.processInfo.environment,
                descriptors: (nil, captureOutput ? output.write.fileDescriptor : nil, nil), searchPath: true)
        } catch {
            throw TmuxFailure(arguments: arguments, status: -1)
        }
        try output.write.close()
        let data = output.read.readDataToEndOfFile()
        let exitCode = waitForExit(pid)
        guard exitCode == 0 else { throw TmuxFailure(arguments: arguments, status: exitCode) }
        return String(decoding: data, as: UTF8.self)
    }
}

struct TmuxFailure: Error {
    let arguments: [String]
    let status: Int32
}
