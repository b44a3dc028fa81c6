import ArgumentParser
import Foundation
import SceneStore

/// Where the scenes live; shared by every subcommand.
struct RootOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The scenes directory (default: $SCENES_ROOT, else the XDG state directory).", valueName: "dir"))
    var root: String?

    /// The registry, opened only after every argument was validated, so
    /// bad input never creates anything.
    func openRegistry(savePolicy: SceneRegistry.SavePolicy = .default) throws -> SceneRegistry {
        try SceneRegistry(root: rootURL(), configuration: .init(savePolicy: savePolicy))
    }

    func rootURL() throws -> URL {
        if let root { return URL(fileURLWithPath: root, isDirectory: true) }
        if let root = ProcessInfo.processInfo.environment["SCENES_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root, isDirectory: true)
        }
        return try SceneRegistry.defaultRoot(appID: "scenes")
    }
}

/// `--scene ID`, validated before anything is opened.
struct SceneOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The scene id: 1-128 of [A-Za-z0-9._-], not starting with '.'.", valueName: "id"))
    var scene: String

    func validate() throws {
        _ = try sceneID()
    }

    func sceneID() throws -> SceneID {
        do {
            return try SceneID(scene)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// Writes `scenes: message` to stderr; throw the result to exit with 1.
func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("scenes: \(message)\n".utf8))
    return ExitCode(1)
}

/// The `KEY` argument, validated with the store's limit before anything
/// is opened.
struct KeyArgument: ParsableArguments {
    @Argument(help: "The key (1-256 UTF-8 bytes).") var key: String

    func validate() throws {
        let limit = SceneRegistry.Limits().maxKeyBytes
        guard (1...limit).contains(key.utf8.count) else {
            throw ValidationError("invalid key \(key.debugDescription): must be 1...\(limit) UTF-8 bytes")
        }
    }

    /// The failure for a key the scene does not hold.
    func missing(in id: SceneID) -> ExitCode {
        failure("no key \(key.debugDescription) in scene \(id.rawValue.debugDescription)")
    }
}

/// Checks that the scene has a file, for commands that only read it.
func requireScene(_ id: SceneID, in registry: SceneRegistry) throws {
    guard try registry.sceneIDs().contains(id) else {
        throw failure("no scene \(id.rawValue.debugDescription) in \(registry.root.path)")
    }
}
