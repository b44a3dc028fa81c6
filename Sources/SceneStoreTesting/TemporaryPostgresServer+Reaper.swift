import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension TemporaryPostgresServer {
    /// Starts a small shell process, in a session of its own, that stops the
    /// server and deletes its directory once this process is gone: a test
    /// run that never calls ``destroy()`` (a suite's shared server), fails,
    /// is interrupted or killed leaves no server behind. It checks once a
    /// second and ends by itself once ``destroy()`` has removed the
    /// directory. Started through a shell that exits at once, so it is
    /// nobody's child here (no zombie to reap).
    func startReaper() throws {
        guard let bin = Self.binDirectory else { throw Failure("no PostgreSQL binaries") }
        let stop = [bin.appendingPathComponent("pg_ctl").path, "stop", "-m", "immediate", "-D",
                    root.appendingPathComponent("data").path]
        let asServerUser = getuid() == 0 ? ["/usr/sbin/runuser", "-u", Self.serverUser, "--"] : []
        // $1: the pid to outlive, $2: the directory, the rest: the stop command.
        let script = """
            owner=$1; directory=$2; shift 2
            ( while kill -0 "$owner" 2>/dev/null && [ -d "$directory" ]; do sleep 1; done
              if [ -d "$directory" ]; then "$@" >/dev/null 2>&1; rm -rf "$directory"; fi ) </dev/null >/dev/null 2>&1 &
            """
        let argv = ["/bin/sh", "-c", script, "scenestore-pg-reaper", "\(getpid())", root.path] + asServerUser + stop

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        _ = reaperActionsCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc): out of the test run's process group,
        // so the Ctrl-C that interrupts the run does not stop it too.
        posix_spawnattr_setflags(&attributes, 0x80)

        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard spawned == 0 else { throw Failure("posix_spawn /bin/sh: errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure("waitpid: errno \(errno)") }
        }
    }
}

@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func reaperActionsCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
