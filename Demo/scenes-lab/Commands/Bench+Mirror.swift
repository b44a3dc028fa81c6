import ArgumentParser
import Foundation
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// What a user sees: two `scenes run` windows (headless, the default
    /// save policy) on one scene; a `push` typed into one, timed until the
    /// other prints it. Changes are spaced beyond the save throttle window,
    /// so each is an isolated change, as a person makes them, and the stack
    /// goes back to its root every `--depth` pushes (unmeasured), as a
    /// person's does: the figure is the change, not the stack's length.
    struct Mirror: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "p50/p99 of a change in one demo window appearing in another.")

        @Option(help: "Measured changes.") var changes = 200
        @Option(help: "Unmeasured changes first.") var warmup = 20
        @Option(help: "Milliseconds between changes (beyond the 30 ms throttle window: isolated changes).")
        var gapMs = 50
        @Option(help: "Pushes before the stack goes back to its root (unmeasured).") var depth = 10
        @Option(help: "Where to create the benchmark's temporary directory.") var directory: String?

        struct Report: Encodable {
            var bench = "mirror"
            var changes: Int
            var gapMs: Int
            var depth: Int
            var mirror: Summary
        }

        func validate() throws {
            guard changes >= 1, warmup >= 0, gapMs >= 0, depth >= 1 else {
                throw ValidationError("--changes and --depth must be positive, --warmup and --gap-ms not negative")
            }
        }

        func run() async throws {
            let scratch = try makeTemporaryDirectory("mirror", in: directory)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let root = scratch.appendingPathComponent("scenes").path
            let left = try DemoWindow(root: root)
            let right = try DemoWindow(root: root)
            defer { left.quit(); right.quit() }
            for window in [left, right] {
                window.send("show")
                guard window.nextLine() != nil else { throw failure("a demo window did not start") }
            }
            var latencies: [Int] = []
            for index in 0..<(warmup + changes) {
                if index > 0, index % depth == 0 {
                    left.send("root")
                    while let line = right.nextLine(), !line.contains("\"mixed\":[]") {}
                    _ = left.nextLine()
                }
                usleep(UInt32(gapMs * 1000))
                let value = 1_000_000 + index
                let start = monotonicNanoseconds()
                left.send("push \(value)")
                while let line = right.nextLine() {
                    if line.contains("\"origin\":\"external\""), line.contains("\(value)]") { break }
                }
                let end = monotonicNanoseconds()
                _ = left.nextLine()  // its own local line
                if index >= warmup { latencies.append(end - start) }
            }
            let report = Report(changes: changes, gapMs: gapMs, depth: depth, mirror: Summary(nanoseconds: latencies))
            emit(try jsonLine(report))
        }
    }
}

/// A headless `scenes run` of this executable, driven line by line.
private final class DemoWindow {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    init(root: String) throws {
        process.executableURL = scenesExecutable
        process.arguments = ["run", "--scene", "bench", "--root", root]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line it printed (blocking), `nil` at its end.
    func nextLine() -> String? {
        let fd = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    func quit() {
        send("quit")
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }
}
