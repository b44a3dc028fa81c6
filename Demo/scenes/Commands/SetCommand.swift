import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set one value; it is durable when the command exits.",
        discussion: """
            Give exactly one type flag. Negative numbers work: --int -5, --double -0.5. \
            Numbers are taken in JSON's syntax only (no +, spaces, leading zeros, hex, \
            underscores, .5 or 1.), plus exactly nan, inf and -inf for --double; a \
            number a double cannot hold (1e400) is refused rather than rounded to inf or 0.
            """
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @OptionGroup var keyArgument: KeyArgument

    @Option(parsing: .unconditional, help: "Exactly true or false.") var bool: String?
    @Option(parsing: .unconditional, help: "A 64-bit integer in decimal: -5, 0, 42.") var int: String?
    @Option(parsing: .unconditional, help: "A double: -0.5, 2, 6.02e23, or exactly nan, inf, -inf.") var double: String?
    @Option(parsing: .unconditional, help: "A string.") var string: String?
    @Option(parsing: .unconditional, help: "An absolute URL (file:///..., https://...).") var url: String?
    @Option(name: .customLong("data-base64"), parsing: .unconditional, help: "Bytes, base64-encoded.")
    var dataBase64: String?

    func validate() throws {
        _ = try parsedValue()
    }

    /// The value given, or a usage error saying what is wrong with it.
    func parsedValue() throws -> SceneValue {
        let given = [bool, int, double, string, url, dataBase64].compactMap { $0 }
        guard given.count == 1 else {
            throw ValidationError("give exactly one of --bool, --int, --double, --string, --url, --data-base64")
        }
        if let bool {
            switch bool {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw ValidationError("--bool takes true or false, not \(bool.debugDescription)")
            }
        }
        if let int {
            guard let value = StrictNumber.int(int) else {
                throw ValidationError("--int takes a 64-bit decimal integer (like -5 or 42), not \(int.debugDescription)")
            }
            return .int(value)
        }
        if let double {
            guard let value = StrictNumber.double(double) else {
                throw ValidationError(
                    "--double takes a finite decimal number (like -0.5 or 6.02e23) or nan, inf, -inf, not \(double.debugDescription)")
            }
            return .double(value)
        }
        if let string { return .string(string) }
        if let url {
            guard let value = URL(string: url), value.scheme != nil else {
                throw ValidationError("--url takes an absolute URL with a scheme, not \(url.debugDescription)")
            }
            return .url(value)
        }
        if let dataBase64 {
            guard let value = Data(base64Encoded: dataBase64) else {
                throw ValidationError("--data-base64 takes base64, not \(dataBase64.debugDescription)")
            }
            return .data(value)
        }
        throw ValidationError("no value given")
    }

    func run() async throws {
        let id = try sceneOption.sceneID()
        let value = try parsedValue()
        let registry = try await rootOptions.openRegistry(readOnly: false, savePolicy: .onFlush)
        let store = try await registry.store(for: id)
        do {
            try store.set(value, forKey: keyArgument.key)
        } catch {
            // Nothing reaches the disk: this registry saves only on flush.
            throw ValidationError(error.description)
        }
        // A lock held too long ends here: nothing was written (see Scenes.main).
        try await registry.close()
    }
}
