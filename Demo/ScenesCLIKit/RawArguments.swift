import Foundation

/// The arguments as the kernel passed them. `CommandLine.arguments`
/// decodes each one leniently, each byte that is not UTF-8 becoming
/// U+FFFD, so a key, value or scene id typed in another encoding would be
/// stored as something else; this reads `argv` itself.
enum RawArguments {
    /// Why the arguments cannot be taken, or `nil` when every one is
    /// valid UTF-8. The message names the argument by position and the
    /// option before it, never its bytes (it may be a password).
    static func invalidUTF8Message() -> String? {
        let arguments = (0..<Int(CommandLine.argc)).map { CommandLine.unsafeArgv[$0] }
        guard let position = arguments.indices.dropFirst().first(where: { index in
            arguments[index].map { String(validatingCString: $0) == nil } ?? false
        }) else { return nil }
        var message = "argument \(position)"
        if let pointer = arguments[position], let name = optionName(in: pointer) {
            message += " (\(name)=...)"
        } else if position > 1, let previous = arguments[position - 1].flatMap({ String(validatingCString: $0) }),
                  previous.hasPrefix("-"), let option = previous.split(separator: "=", maxSplits: 1).first {
            message += " (after \(option))"
        }
        return message + " is not valid UTF-8: scene ids, keys, values and paths must be UTF-8 text"
    }

    /// `--name` of an argument `--name=value`, if that part is UTF-8.
    private static func optionName(in argument: UnsafeMutablePointer<CChar>) -> String? {
        let bytes = UnsafeBufferPointer(start: argument, count: strlen(argument)).map { UInt8(bitPattern: $0) }
        guard bytes.starts(with: Array("--".utf8)), let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
            return nil
        }
        return String(validating: bytes[..<equals], as: UTF8.self)
    }
}
