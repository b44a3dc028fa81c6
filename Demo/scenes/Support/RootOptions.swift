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

/// Keys are validated before anything is opened, with the store's limit.
func validateKey(_ key: String) throws {
    let limit = SceneRegistry.Limits().maxKeyBytes
    guard (1...limit).contains(key.utf8.count) else {
        throw ValidationError("invalid key \(key.debugDescription): must be 1...\(limit) UTF-8 bytes")
    }
}

/// Checks that the scene has a file, for commands that only read it.
func requireScene(_ id: SceneID, in registry: SceneRegistry) throws {
    guard try registry.sceneIDs().contains(id) else {
        throw failure("no scene \(id.rawValue.debugDescription) in \(registry.root.path)")
    }
}
