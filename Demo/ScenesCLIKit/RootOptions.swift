import ArgumentParser
import Foundation
import SceneStore
#if Postgres
import SceneStorePostgres
#endif

/// Where the scenes live and how long to wait for another process's
/// lock; shared by every subcommand (and accepted before it too:
/// `scenes --lock-timeout 2 set ...`).
package struct RootOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("The scenes directory (default: $SCENES_ROOT, else the XDG state directory).", valueName: "dir"))
    package var root: String?

    @Option(name: .customLong("app-id"), help: ArgumentHelp(
        "Use the scenes of the app with this id, where the library keeps them by default ($XDG_STATE_HOME/ID/scenes; in PostgreSQL, that app's channel).",
        valueName: "id"))
    package var appID: String?

    @Option(name: .long, help: ArgumentHelp(
        "Keep the scenes in PostgreSQL instead of files (default: $SCENES_DATABASE_URL). Needs a build with --traits Postgres.",
        valueName: "postgres://user:password@host:port/database"))
    package var backend: String?

    /// Taken whatever it looks like (`-1` too), so that `validate()`
    /// says what is wrong with a negative value instead of argument
    /// parser's "Missing value".
    @Option(name: .customLong("lock-timeout"), parsing: .unconditional, help: ArgumentHelp(
        "How long to wait for a scene another process has locked before giving up (exit status 75).",
        valueName: "seconds"))
    package var lockTimeoutSeconds: Double = Self.defaultLockTimeoutSeconds

    package static let defaultLockTimeoutSeconds: Double = 10

    package func validate() throws {
        if let root, root.isEmpty {
            throw ValidationError("--root must name a directory; an empty path would mean the current directory")
        }
        if let backend {
            guard !backend.isEmpty else { throw ValidationError("--backend must name a database URL") }
            guard root == nil else { throw ValidationError("--root and --backend name two places for the scenes; give one") }
        }
        if let appID {
            guard root == nil else { throw ValidationError("--root and --app-id name two places for the scenes; give one") }
            guard (try? SceneID(appID)) != nil else {
                throw ValidationError("--app-id takes 1-128 of [A-Za-z0-9._-], not starting with '.', not \(appID.debugDescription)")
            }
        }
        guard lockTimeoutSeconds.isFinite, (0...86_400).contains(lockTimeoutSeconds) else {
            let given = lockTimeoutSeconds.rounded() == lockTimeoutSeconds && abs(lockTimeoutSeconds) < 1e15
                ? String(Int64(lockTimeoutSeconds)) : String(lockTimeoutSeconds)
            throw ValidationError("--lock-timeout takes 0 to 86400 seconds, not \(given)")
        }
    }

    /// The registry, opened only after every argument was validated, so
    /// bad input never creates anything.
    ///
    /// One-shot commands take the defaults: no file watcher (no thread
    /// started for one), and read-only for those that only read, which
    /// creates nothing on disk.
    package func openRegistry(
        readOnly: Bool,
        watcher: WatcherPreference = .none,
        savePolicy: SceneRegistry.SavePolicy = .default
    ) async throws -> SceneRegistry {
        let configuration = SceneRegistry.Configuration(
            savePolicy: savePolicy, watcher: watcher, lockTimeout: lockTimeout, readOnly: readOnly)
        guard let database = databaseURL else {
            return try await SceneRegistry(root: rootURL(), configuration: configuration)
        }
        #if Postgres
        return try await SceneRegistry(postgres: database, appID: appID ?? "scenes", configuration: configuration)
        #else
        _ = database
        throw failure("this build of scenes has no PostgreSQL support: build it with `swift build --traits Postgres`", status: 69)
        #endif
    }

    /// `--backend`, else `$SCENES_DATABASE_URL`: where a database keeps
    /// the scenes, or `nil` for files.
    package var databaseURL: String? {
        if let backend { return backend }
        guard root == nil, let url = ProcessInfo.processInfo.environment["SCENES_DATABASE_URL"], !url.isEmpty else {
            return nil
        }
        return url
    }

    package var lockTimeout: Duration { .milliseconds((lockTimeoutSeconds * 1000).rounded()) }

    package func rootURL() throws -> URL {
        if let root { return URL(fileURLWithPath: root, isDirectory: true) }
        if appID == nil, let root = ProcessInfo.processInfo.environment["SCENES_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root, isDirectory: true)
        }
        return try SceneRegistry.defaultRoot(appID: appID ?? "scenes")
    }

    /// Whether the root exists: commands that change a scene that must
    /// already be there (remove, discard) check it first, so that they
    /// never create an empty root.
    package func rootExists() throws -> Bool {
        if databaseURL != nil { return true }
        return FileManager.default.fileExists(atPath: try rootURL().path)
    }
}

/// `--scene ID`, validated before anything is opened.
package struct SceneOption: ParsableArguments {
    package init() {}

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The scene id: 1-128 of [A-Za-z0-9._-], not starting with '.'.", valueName: "id"))
    package var scene: String

    package func validate() throws {
        _ = try sceneID()
    }

    package func sceneID() throws -> SceneID {
        do {
            return try SceneID(scene)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// Writes `scenes: message` to stderr; throw the result to exit with
/// `status` (1 unless told).
package func failure(_ message: String, status: Int32 = 1) -> ExitCode {
    writeError(message)
    return ExitCode(status)
}

/// Writes `scenes: message` to stderr, control characters escaped.
package func writeError(_ message: String) {
    let line = Array("scenes: \(message.escapingControlCharacters(andBackslash: false))\n".utf8)
    line.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The `KEY` argument, validated with the store's limit before anything
/// is opened.
package struct KeyArgument: ParsableArguments {
    @Argument(help: "The key (1-256 UTF-8 bytes).") package var key: String

    package init() {}

    package func validate() throws {
        let limit = SceneRegistry.Limits().maxKeyBytes
        guard (1...limit).contains(key.utf8.count) else {
            throw ValidationError("invalid key \(key.debugDescription): a key is 1 to \(limit) UTF-8 bytes")
        }
    }

    /// The failure for a key the scene does not hold.
    package func missing(in id: SceneID) -> ExitCode {
        failure("no key \(key.debugDescription) in scene \(id.rawValue.debugDescription)")
    }
}

/// Checks that the scene has a file, for commands that only read it.
package func requireScene(_ id: SceneID, in registry: SceneRegistry) async throws {
    guard try await registry.sceneIDs().contains(id) else {
        throw noScene(id, in: registry.location)
    }
}

/// The failure for a scene that has no file in `root`.
package func noScene(_ id: SceneID, in location: String) -> ExitCode {
    failure("no scene \(id.rawValue.debugDescription) in \(location)")
}
