import Foundation
import SceneStore
import SceneStoreTesting
#if canImport(Glibc)
import Glibc
import MultiProcessSupport
#endif

/// A `scenes` process caught while its registry is open, looked at through
/// /proc: either blocked writing to a full stdout pipe (commands that print)
/// or waiting for a scene lock another process holds (commands that write).
final class HeldScenes {
    private let child: ChildReaper
    private let stdoutRead: FileHandle?

    /// Starts `scenes <arguments>` with stdout on a pipe that is already
    /// full, so its first line blocks in write(2) until ``release()``.
    static func blockedOnStdout(_ arguments: [String], root: URL) throws -> HeldScenes {
        let pipe = try cloexecPipe()
        let writeFD = pipe.write.fileDescriptor
        let flags = fcntl(writeFD, F_GETFL)
        _ = fcntl(writeFD, F_SETFL, flags | O_NONBLOCK)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        while chunk.withUnsafeBytes({ write(writeFD, $0.baseAddress, $0.count) }) > 0 {}
        // Flag of the shared open file description: blocking again for the child.
        _ = fcntl(writeFD, F_SETFL, flags)
        let child = try spawnScenes(arguments, root: root, stdout: pipe.write.fileDescriptor)
        try pipe.write.close()
        return HeldScenes(child: child, stdoutRead: pipe.read)
    }

    /// Starts `scenes <arguments>`; the caller holds a lock it will wait for.
    static func waitingForLock(_ arguments: [String], root: URL) throws -> HeldScenes {
        HeldScenes(child: try spawnScenes(arguments, root: root, stdout: nil), stdoutRead: nil)
    }

    /// Started by `spawnChild`, not `Foundation.Process` (see ``ChildReaper``).
    private static func spawnScenes(_ arguments: [String], root: URL, stdout: Int32?) throws -> ChildReaper {
        ChildReaper(pid: try spawnChild(
            scenesExecutable.path, arguments, environment: scenesEnvironment(root: root, program: .scenes, extra: [:]),
            descriptors: (nil, stdout, nil)))
    }

    private init(child: ChildReaper, stdoutRead: FileHandle?) {
        self.child = child
        self.stdoutRead = stdoutRead
    }

    var pid: Int32 { child.pid }

    /// Waits until `condition` holds, checking every few milliseconds.
    /// - Returns: false if it did not hold within `timeout`.
    func wait(upTo timeout: Duration = .seconds(20), until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            if !child.isRunning { return condition() }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Whether a thread of the process is in write(2) on fd 1.
    var isBlockedWritingStdout: Bool {
        entries("/proc/\(pid)/task").contains { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? "")
                .hasPrefix("\(writeSyscallNumber) 0x1 ")
        }
    }

    /// Whether a thread of the process sleeps in clock_nanosleep(2): the
    /// pause between two tries of a lock another process holds.
    var isWaitingForALock: Bool {
        entries("/proc/\(pid)/task").contains { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? "")
                .hasPrefix("\(nanosleepSyscallNumber) ")
        }
    }

    var fdTargets: [String] {
        entries("/proc/\(pid)/fd").compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
    }

    var threadNames: [String] {
        entries("/proc/\(pid)/task").map { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// What a file watcher would leave: an inotify descriptor or the
    /// inotify owner thread (the polling watcher runs on a dispatch queue
    /// and registers nothing the automatic choice would not show first).
    var watcherTraces: [String] {
        fdTargets.filter { $0 == "anon_inode:inotify" } + threadNames.filter { $0 == WatcherKind.inotifyThreadName }
    }

    /// Reads stdout (the filler first) until `done` holds for what came
    /// after the filler, the output ends, or `timeout` passes.
    /// - Returns: the output after the filler, or `nil` without a stdout pipe.
    func readUntil(within timeout: Duration, _ done: (String) -> Bool) -> String? {
        guard let stdoutRead else { return nil }
        let fd = stdoutRead.fileDescriptor
        let deadline = ContinuousClock.now + timeout
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { continue }
            if poller.revents == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            let chunk = buffer[..<count]
            output += output.isEmpty ? chunk.drop(while: { $0 == UInt8(ascii: "x") }) : chunk
            if done(String(decoding: output, as: UTF8.self)) { break }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Lets the process go on (drains its stdout) and waits for its exit.
    /// - Returns: its exit status.
    func release() async -> Int32 {
        if let stdoutRead {
            // Until the process exits, not until an end of file.
            let fd = stdoutRead.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65536)
            while child.isRunning {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 20) > 0 {
                    if buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) <= 0 { break }
                }
            }
        }
        return await child.end().shellStatus
    }

    deinit {
        child.kill()
    }

    private func entries(_ directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }
}

/// write(2) and clock_nanosleep(2) in /proc/<pid>/syscall.
#if arch(arm64)
private let writeSyscallNumber = 64
private let nanosleepSyscallNumber = 115
#else
private let writeSyscallNumber = 1
private let nanosleepSyscallNumber = 230
#endif

/// Every path under `directory`, relative, sorted (empty if it is missing).
func treeListing(_ directory: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
    return (enumerator.allObjects as? [String] ?? []).sorted()
}
