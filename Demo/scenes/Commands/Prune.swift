import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

struct Prune: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Close for good the windows nobody reopened for a while.",
        discussion: """
            Deletes the state of every restorable window scene (see `scenes list`) last active longer \
            ago than --older-than, and prints each id. Windows a running process has open, and scenes \
            opened by id (`--scene`), are never touched.
            """)

    @OptionGroup var rootOptions: RootOptions
    @Option(name: .customLong("older-than"), help: ArgumentHelp(
        "An age: digits and s, m, h or d (90s, 30m, 12h, 30d).", valueName: "age"))
    var olderThan: String

    func validate() throws {
        _ = try Self.age(olderThan)
    }

    func run() async throws {
        let registry = try await rootOptions.openRegistry(readOnly: false)
        do {
            for id in try await registry.prune(olderThan: Self.age(olderThan)) { emit(id.rawValue) }
        } catch {
            try? await registry.close()
            throw failure("\(error)")
        }
        try await registry.close()
    }

    static func age(_ text: String) throws -> Duration {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        // Digits only: `Int64` alone would take a sign (`+5s`, `-0s`).
        let digits = text.utf8.dropLast()
        guard let unit = text.last.flatMap({ units[$0] }), !digits.isEmpty,
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let count = Int64(text.dropLast()), count <= Int64.max / unit / 1000 else {
            throw ValidationError("--older-than takes a number and s, m, h or d (like 30d), not \(text.debugDescription)")
        }
        return .seconds(count * unit)
    }
}
