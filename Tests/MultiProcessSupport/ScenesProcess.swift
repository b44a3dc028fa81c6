import Foundation
import SceneStore
import SceneStoreTesting

/// The built `scenes` executable, next to the test bundle (the test target
/// depends on it, so `swift test` builds it first).
package let scenesExecutable: URL = URL(fileURLWithPath: "/proc/self/exe")
    .resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("scenes")

/// The `scenes-lab` executable (benchmarks, probes, stress and torture
/// writers), built next to `scenes`.
package let scenesLabExecutable: URL = scenesExecutable.deletingLastPathComponent().appendingPathComponent("scenes-lab")

/// Which executable a test launches.
package enum ScenesProgram: Sendable {
    /// The user-facing CLI and demo.
    case scenes
    /// Benchmarks, probes and load writers.
    case lab
    /// `/bin/sh`, with `$SCENES` naming the `scenes` executable and
    /// `$SCENES_LAB` `scenes-lab`: for arguments no Swift string can hold
    /// (bytes that are not UTF-8, made with `printf '\377'`), loops of
    /// commands, and a process in a namespace of its own (`unshare`).
    case shell

    package var url: URL {
        switch self {
        case .scenes: scenesExecutable
        case .lab: scenesLabExecutable
        case .shell: URL(fileURLWithPath: "/bin/sh")
        }
    }
}

/// What a finished `scenes` run printed.
package struct ScenesResult: Sendable {
    package let status: Int32
    package let stdout: String
    package let stderr: String
}

/// The test's own environment with `extra` added, `SCENES_ROOT` set to
/// `root` and, for the shell, `$SCENES` naming the `scenes` executable.
package func scenesEnvironment(root: URL, program: ScenesProgram, extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    environment["SCENES_ROOT"] = root.path
    if program == .shell {
        environment["SCENES"] = scenesExecutable.path
        environment["SCENES_LAB"] = scenesLabExecutable.path
    }
    return environment
}

/// Runs `scenes` with `arguments` against `root` (in `workingDirectory`
/// when given, with `environment` added to the test's own) and waits for
/// it to exit, on a thread of its own: the test's task waits without
/// holding one of the few threads (or the main actor) that every test
/// shares.
@discardableResult
package func scenes(
    _ arguments: [String], root: URL, stdin: String? = nil, program: ScenesProgram = .scenes,
    workingDirectory: URL? = nil, environment: [String: String] = [:]
) async throws -> ScenesResult {
    try await blockingWork {
        try scenesBlocking(
            arguments, root: root, stdin: stdin, program: program, workingDirectory: workingDirectory,
            environment: environment)
    }
}

private func scenesBlocking(
    _ arguments: [String], root: URL, stdin: String?, program: ScenesProgram, workingDirectory: URL?,
    environment: [String: String]
) throws -> ScenesResult {
    // Started by `spawnChild`, not `Foundation.Process`: no child another
    // test starts meanwhile holds an end of these pipes (or the socket
    // Foundation learns a child's exit from) open, so the end of output
    // really is this process's exit.
    let out = try cloexecPipe()
    let err = try cloexecPipe()
    let input = try cloexecPipe()
    let pid = try spawnChild(
        program.url.path, arguments, environment: scenesEnvironment(root: root, program: program, extra: environment),
        descriptors: (input.read.fileDescriptor, out.write.fileDescriptor, err.write.fileDescriptor),
        workingDirectory: workingDirectory?.path)
    try out.write.close()
    try err.write.close()
    try input.read.close()
    if let stdin { input.write.write(Data(stdin.utf8)) }
    try input.write.close()
    // stderr is drained meanwhile: a child that fills the stderr pipe
    // (a trace log) before closing stdout would otherwise wait forever.
    // On a thread of its own: a blocking read on a global dispatch queue
    // holds one of the threads that Swift's concurrency runs every test on.
    let stderrRead = DispatchSemaphore(value: 0)
    let stderrBox = Locked(Data())
    let errRead = err.read
    Thread.detachNewThread {
        let data = errRead.readDataToEndOfFile()
        stderrBox.withLock { $0 = data }
        stderrRead.signal()
    }
    let stdoutData = out.read.readDataToEndOfFile()
    stderrRead.wait()
    let stderrData = stderrBox.withLock { $0 }
    return ScenesResult(
        status: waitForExit(pid),
        stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData, as: UTF8.self))
}

/// A `scenes` process left running: its stdout arrives as a stream of lines.
/// Started by ``spawnChild(_:_:environment:descriptors:workingDirectory:searchPath:)``
/// (it inherits no other test's descriptors, nor they its pipes).
package final class RunningScenes: Sendable {
    package let pid: pid_t
    package let lines: AsyncStream<String>
    private let input: FileHandle
    /// Kept for the life of the process: it closes its descriptor when freed.
    private let output: FileHandle
    /// Where the process's stderr goes (removed with this object).
    private let errorFile: String
    private let reaper: ChildReaper

    package init(_ arguments: [String], root: URL, program: ScenesProgram = .scenes) throws {
        let out = try cloexecPipe()
        let inputPipe = try cloexecPipe()
        let errorFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("scenes-stderr-\(UUID().uuidString)").path
        let errorFD = open(errorFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { if errorFD >= 0 { close(errorFD) } }
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        pid = try spawnChild(
            program.url.path, arguments, environment: scenesEnvironment(root: root, program: program, extra: [:]),
            descriptors: (inputPipe.read.fileDescriptor, out.write.fileDescriptor, errorFD >= 0 ? errorFD : nil))
        try out.write.close()
        try inputPipe.read.close()
        // A thread of its own reads until end of file: `readabilityHandler`
        // sometimes never reported the end of a process's output (a
        // test then waited out its timeout for lines that had all come).
        // The closure keeps the handle, so its descriptor stays open (and
        // is never reused under the reader) until the reader is done.
        let reader = out.read
        Thread.detachNewThread {
            let buffer = LineBuffer()
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(reader.fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    for line in buffer.append(Data(chunk[0..<count])) { continuation.yield(line) }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            continuation.finish()
        }
        self.lines = lines
        self.input = inputPipe.write
        self.output = out.read
        self.errorFile = errorFile
        reaper = ChildReaper(pid: pid)
    }

    /// What the process wrote to stderr so far: for failure messages.
    package var errorOutput: String {
        (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
    }

    /// Sends one line to the process's stdin.
    package func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// Closes the process's stdin (commands that wait for its end then finish).
    package func closeInput() {
        try? input.close()
    }

    /// Sends `signal` while the process has not been reaped.
    package func kill(_ signal: Int32 = SIGKILL) {
        reaper.kill(signal)
    }

    /// Stops the process (`SIGSTOP`) and returns once the kernel shows it
    /// stopped (`T` in `/proc/<pid>/stat`): `kill` returns when the signal
    /// is queued, and until it is taken the process runs on (a write it
    /// makes then lands after the caller thought it stopped).
    package func stop() async {
        kill(SIGSTOP)
        while let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")"),
              stat[stat.index(after: nameEnd)...].split(separator: " ").first.map({ $0 != "T" && $0 != "Z" }) == true {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Waits for the process to exit: its status, or 128 + the signal
    /// that ended it.
    package func exitStatus() async -> Int32 {
        await reaper.end().shellStatus
    }

    /// The exit status, or `nil` if the process did not exit within
    /// `timeout` (it is killed then).
    package func exitStatus(within timeout: Duration) async -> Int32? {
        await reaper.end(within: timeout)?.shellStatus
    }

    deinit {
        kill()
        unlink(errorFile)
    }
}

/// Splits bytes into lines as they arrive.
private final class LineBuffer: @unchecked Sendable {
    private var pending = Data()
    private let lock = NSLock()

    package func append(_ data: Data) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        pending.append(data)
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending.removeSubrange(pending.startIndex...newline)
        }
        return lines
    }
}

extension RunningScenes {
    /// Bytes sent to the process's stdin that it has not read yet
    /// (`FIONREAD` on the pipe).
    package var unreadInputBytes: Int {
        var count: Int32 = 0
        guard ioctl(input.fileDescriptor, UInt(FIONREAD), &count) == 0 else { return -1 }
        return Int(count)
    }

    /// Waits until the process has read everything sent to its stdin.
    /// - Returns: false if it has not after `timeout`.
    package func readAllInput(within timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while unreadInputBytes != 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }
}

/// glibc's pipe2(2), which the Glibc module leaves out (it needs _GNU_SOURCE).
@_silgen_name("pipe2")
private func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// A pipe whose two descriptors are close-on-exec from the start, so that
/// no other child spawned meanwhile (tests run in parallel) inherits them:
/// closing the test's end really closes the pipe.
package func cloexecPipe() throws -> (read: FileHandle, write: FileHandle) {
    var fds: [Int32] = [-1, -1]
    guard systemPipe2(&fds, O_CLOEXEC) == 0 else { throw PipeFailure(errno: errno) }
    return (FileHandle(fileDescriptor: fds[0], closeOnDealloc: true), FileHandle(fileDescriptor: fds[1], closeOnDealloc: true))
}

package struct PipeFailure: Error, CustomStringConvertible {
    package let errno: Int32
    package var description: String { "pipe2: errno \(errno)" }
}
