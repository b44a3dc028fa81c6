import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This executable run again as a child (a benchmark's second process),
/// whose stdout is read line by line with a deadline.
final class PeerProcess {
    private let process = Process()
    private let output: Int32
    private var buffer: [UInt8] = []
    private let input = Pipe()

    /// Starts `scenes-lab <arguments>`; its stderr goes to ours.
    init(_ arguments: [String]) throws {
        process.executableURL = labExecutable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = input
        try process.run()
        output = pipe.fileHandleForReading.fileDescriptor
    }

    /// Closes the peer's stdin: a peer that waits for its end goes on.
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    var pid: Int32 { process.processIdentifier }

    /// The next line the peer prints, or nil at end of file or after `timeout`.
    func readLine(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready == -1 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(output, &chunk, chunk.count)
            if count == -1 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Stops the peer and waits for it.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
