import ArgumentParser
import ScenesCLIKit

extension Get {
    /// `scenes get` in the plain form scripts run it, taken without the
    /// argument parser, whose reflection was about 10 of the 28 ms the
    /// whole process took (`scenes-lab bench compare`, `scenes get`).
    ///
    /// Only `get`, then the options `--root`, `--app-id`, `--backend`,
    /// `--lock-timeout` and `--scene` (each once, `--name value` or
    /// `--name=value`, no value starting with `-`), the flags `--json` and
    /// `--raw` (each once), and one key not starting with `-`, checked by
    /// the same `validate()`s. Anything else (help, an unknown or repeated
    /// option, a value that does not validate, options before `get`) is
    /// `nil`: the argument parser then takes the arguments and says what
    /// is wrong, exactly as before.
    static func direct(_ arguments: [String]) -> (any ParsableCommand)? {
        guard arguments.first == "get" else { return nil }
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var key: String?
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            if argument.hasPrefix("--") {
                let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                switch name {
                case "--json", "--raw":
                    guard parts.count == 1, flags.insert(name).inserted else { return nil }
                case "--root", "--app-id", "--backend", "--lock-timeout", "--scene":
                    guard values[name] == nil,
                          let value = parts.count == 2 ? String(parts[1]) : rest.popFirst(),
                          !value.hasPrefix("-")
                    else { return nil }
                    values[name] = value
                default:
                    return nil
                }
            } else {
                guard !argument.hasPrefix("-"), key == nil else { return nil }
                key = argument
            }
        }
        guard let key, let scene = values["--scene"] else { return nil }
        var rootOptions = RootOptions()
        rootOptions.root = values["--root"]
        rootOptions.appID = values["--app-id"]
        rootOptions.backend = values["--backend"]
        rootOptions.lockTimeoutSeconds = RootOptions.defaultLockTimeoutSeconds
        if let seconds = values["--lock-timeout"] {
            guard let seconds = Double(seconds) else { return nil }
            rootOptions.lockTimeoutSeconds = seconds
        }
        var sceneOption = SceneOption()
        sceneOption.scene = scene
        var keyArgument = KeyArgument()
        keyArgument.key = key
        guard (try? rootOptions.validate()) != nil, (try? sceneOption.validate()) != nil,
              (try? keyArgument.validate()) != nil
        else { return nil }
        var get = Get()
        get.rootOptions = rootOptions
        get.sceneOption = sceneOption
        get.keyArgument = keyArgument
        get.json = flags.contains("--json")
        get.raw = flags.contains("--raw")
        return get
    }
}
