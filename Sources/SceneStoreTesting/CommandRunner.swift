import Foundation
import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// Runs `argv` (an absolute executable path first) in `directory` and
/// waits for it; returns what it wrote to its standard output and error.
///
/// Spawned directly, not with Foundation's `Process`: a server that the
/// command leaves running (`pg_ctl start`) would inherit the descriptors by
/// which `Process` learns that its child exited, and it never would. Here
/// the child gets only its standard descriptors (`closefrom(3)`), standard
/// input from `/dev/null`.
/// - Throws: ``CommandFailure`` when it cannot start or does not exit 0.
func runCommand(_ argv: [String], in directory: URL) throws -> String {
    let outputPath = directory.appendingPathComponent("command-\(UUID().uuidString).log").path
    defer { unlink(outputPath) }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    _ = spawnActionsChangeDirectory(&actions, directory.path)
    _ = spawnActionsCloseFrom(&actions, 3)

    let cArguments = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
    guard spawned == 0 else { throw CommandFailure(description: "posix_spawn \(argv[0]): errno \(spawned)") }
    var status: Int32 = 0
    try syscall("waitpid", path: argv[0]) { waitpid(pid, &status, 0) }
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    // Exited normally (WIFEXITED) with status 0.
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
        throw CommandFailure(description: "wait status \(status): \(text)")
    }
    return text
}

/// Why ``runCommand(_:in:)`` failed.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
}

// glibc's (2.29, 2.34) spawn actions that Swift's Glibc module does not
// import: the child's working directory, and closing every descriptor from 3 on.
@_silgen_name("posix_spawn_file_actions_addchdir_np")
private func spawnActionsChangeDirectory(
    _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>
) -> Int32

@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnActionsCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
