import ArgumentParser
import Foundation
import Logging
import SceneStore

/// The `main` of both executables: logs to stderr at `$SCENES_LOG_LEVEL`
/// (default: warning; a full-screen session sends them to a file, see
/// ``LogRouting``), refuses arguments that are not UTF-8 (exit status
/// 64, before anything is opened), parses the arguments for `Command`,
/// runs the subcommand, and turns a ``SceneStoreError`` into a `scenes: …`
/// line and exit status (75, EX_TEMPFAIL, for a lock held too long:
/// nothing was written and trying again later may work; else 1).
///
/// - Parameter direct: the command the arguments (without the program's
///   name) name, when it can tell them without the argument parser, whose
///   reflection costs a one-shot command about 10 ms; `nil`: the parser
///   decides (and tells what is wrong with them).
package func runCommandLine<Command: ParsableCommand>(
    _ root: Command.Type, direct: ([String]) -> (any ParsableCommand)? = { _ in nil }
) async -> Never {
    LoggingSystem.bootstrap { label in
        let level = ProcessInfo.processInfo.environment["SCENES_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        return LogRouting.handler(label: label, level: level ?? .warning)
    }
    if let message = RawArguments.invalidUTF8Message() {
        Command.exit(withError: failure(message, status: 64))
    }
    do {
        var command = try direct(Array(CommandLine.arguments.dropFirst())) ?? Command.parseAsRoot()
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
        Command.exit()
    } catch let error as SceneStoreError {
        switch error {
        case .lockTimeout:
            Command.exit(withError: failure("\(error); nothing was written", status: 75))
        case .invalidStorageLocation:
            Command.exit(withError: failure("\(error)", status: 64))
        case .storageUnavailable:
            Command.exit(withError: failure("\(error)", status: 69))
        default:
            Command.exit(withError: failure("\(error)"))
        }
    } catch {
        Command.exit(withError: error)
    }
}

/// Exits with status 71 (EX_OSERR) and a line on stderr when fewer than
/// ``minimumOpenFiles`` descriptors are allowed. Called first in `main`,
/// before anything suspends: with 4 or 5 the concurrency runtime traps
/// (SIGILL) setting up its event loop at the first suspension.
package func refuseTooFewOpenFiles() {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < minimumOpenFiles else { return }
    let program = (CommandLine.arguments.first as NSString?)?.lastPathComponent ?? "scenes"
    let message = "\(program): the open-file limit is \(limit.rlim_cur) (ulimit -n); it needs at least \(minimumOpenFiles)\n"
    _ = message.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    exit(71)
}

/// The fewest descriptors a command starts with: the runtime's event loop,
/// the standard streams, the watcher, a scene's lock and its file, the
/// directory, the windows' scene and a claim, with room for a save's
/// temporary file.
package let minimumOpenFiles: rlim_t = 16
