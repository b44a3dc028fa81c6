import Foundation
import ScenesCLIKit

/// Runs `executable` with `arguments` to its end, as a benchmark's fresh
/// process: the wall time from spawning it until it is reaped, and what
/// it printed. Its stderr goes to ours; a failure exit throws.
func timedRun(_ executable: URL, _ arguments: [String]) throws -> (nanoseconds: Int, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardInput = FileHandle.nullDevice
    let start = monotonicNanoseconds()
    try process.run()
    // Read to end of file before waiting, so a child that prints more than
    // a pipe holds cannot block.
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let elapsed = monotonicNanoseconds() - start
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
        throw failure("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)")
    }
    return (elapsed, String(decoding: output, as: UTF8.self))
}
