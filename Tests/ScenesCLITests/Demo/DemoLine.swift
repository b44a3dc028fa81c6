import Foundation
import MultiProcessSupport

/// One JSON state line of `scenes run` in headless mode, decoded.
struct DemoLine: Decodable, Equatable, Sendable {
    struct Stacks: Decodable, Equatable, Sendable {
        var mixed: [MixedElement]
        var books: [String]
        var library: [[String: LibraryValue]]
    }

    struct Screen: Decodable, Equatable, Sendable {
        var title: String
        var links: [String]
    }

    var scene: String
    var tab: String
    var stacks: Stacks
    /// Each stack's forward entries, the next first.
    var forward: Stacks
    var screen: Screen
    var origin: String

    /// Decodes a line; `nil` for anything else.
    init?(_ line: String) {
        guard let decoded = try? JSONDecoder().decode(DemoLine.self, from: Data(line.utf8)) else { return nil }
        self = decoded
    }

    /// Tab and stacks, what a relaunch must bring back.
    var navigation: Navigation {
        Navigation(tab: tab, stacks: stacks)
    }

    struct Navigation: Equatable, Sendable {
        var tab: String
        var stacks: Stacks
    }
}

/// A Mixed stack element: a JSON number or a JSON string, kept apart.
enum MixedElement: Decodable, Hashable, Sendable {
    case number(Int)
    case text(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }
}

/// The value of a Library element object: a title, or `true` for settings.
enum LibraryValue: Decodable, Equatable, Sendable {
    case title(String)
    case flag(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else {
            self = .title(try container.decode(String.self))
        }
    }
}

/// Runs `scenes run --scene <scene>` headless with `commands` on stdin and
/// returns its state lines (the process exits at the end of its input).
func headless(_ commands: [String], scene: String = "main", root: URL) async throws -> (lines: [DemoLine], stderr: String, status: Int32) {
    let result = try await scenes(["run", "--scene", scene], root: root, stdin: commands.map { $0 + "\n" }.joined())
    let lines = result.stdout.split(separator: "\n").map(String.init)
    return (lines.compactMap(DemoLine.init), result.stderr, result.status)
}
