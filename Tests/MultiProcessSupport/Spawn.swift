import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts a child with `posix_spawn` that inherits no descriptor of the
/// test process but 0, 1 and 2 (`posix_spawn_file_actions_addclosefrom_np`),
/// with every signal unblocked and at its default action.
///
/// Tests run in parallel in one process, so a child started by one test
/// must not inherit a descriptor another test holds: a long-lived child
/// (a tmux server, a writer) that keeps a copy of another child's output
/// pipe, or of Foundation's per-`Process` socket that reports its exit,
/// leaves that test waiting for an end of file or an exit that never
/// comes. `Foundation.Process` closes the descriptors it saw open before
/// spawning, so one opened by another thread meanwhile slips through;
/// closing from 3 up in the child does not race.
/// - Parameters:
///   - descriptors: what the child gets as 0, 1 and 2 (`nil`: `/dev/null`).
///   - workingDirectory: where the child starts (`nil`: here).
/// - Returns: the child's pid, for ``waitForExit(_:)`` or a ``ChildReaper``.
package func spawnChild(
    _ executable: String, _ arguments: [String], environment: [String: String],
    descriptors: (stdin: Int32?, stdout: Int32?, stderr: Int32?), workingDirectory: String? = nil,
    searchPath: Bool = false
) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (target, source) in [descriptors.stdin, descriptors.stdout, descriptors.stderr].enumerated() {
        if let source {
            posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
        } else {
            posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
        }
    }
    guard let closeFrom = spawnExtensions.closeFrom, closeFrom(&actions, 3) == 0 else {
        throw SpawnFailure(executable: executable, reason: "posix_spawn_file_actions_addclosefrom_np is missing (glibc < 2.34)")
    }
    if let workingDirectory {
        guard let chdir = spawnExtensions.chdir, chdir(&actions, workingDirectory) == 0 else {
            throw SpawnFailure(executable: executable, reason: "posix_spawn_file_actions_addchdir_np is missing")
        }
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = searchPath
        ? posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        : posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw SpawnFailure(executable: executable, reason: String(cString: strerror(spawned))) }
    return pid
}

/// Waits for the child `pid` to end: its exit status, or 128 + the signal
/// that ended it (as a shell reports it).
package func waitForExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { return -1 }
    }
    return ChildEnd(waitStatus: status).shellStatus
}

package struct SpawnFailure: Error, CustomStringConvertible {
    package let executable: String
    package let reason: String
    package var description: String { "cannot start \(executable): \(reason)" }
}

/// glibc's `posix_spawn` extensions, which Swift does not import (they
/// need `_GNU_SOURCE`), looked up once.
private struct SpawnExtensions: @unchecked Sendable {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    let closeFrom: CloseFrom?
    let chdir: ChangeDirectory?

    init() {
        let handle = dlopen(nil, RTLD_NOW)
        closeFrom = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: CloseFrom.self) }
        chdir = dlsym(handle, "posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: ChangeDirectory.self) }
    }
}

private let spawnExtensions = SpawnExtensions()
