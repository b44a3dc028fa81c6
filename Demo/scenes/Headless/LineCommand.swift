import Foundation

/// One command of the headless protocol, a line on stdin.
enum LineCommand: Equatable {
    case tab(Tab)
    /// Follow the Nth link (1-based) of the current screen.
    case open(Int)
    /// Push on the Mixed path: an integer, else the text as a string.
    case push(MixedValue)
    case back
    /// Bring back the screen the last `back` left (browser forward).
    case forward
    case root
    case settings
    case show
    case quit

    /// The commands, as the usage error lists them.
    static let usage = "tab mixed|books|library|1|2|3, open N, push VALUE, back, forward, root, settings, show, quit"

    /// Parses a line; `nil` for a blank line.
    /// - Throws: a message naming what is wrong, for an unknown command or
    ///   a bad argument.
    init?(parsing line: String) throws(LineCommandError) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let parts = trimmed.split(separator: " ", maxSplits: 1).map(String.init)
        let name = parts[0]
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
        switch (name, argument) {
        case ("tab", let argument?):
            guard let tab = Tab(argument: argument) else {
                throw LineCommandError("unknown tab \(argument.debugDescription): use mixed, books, library, 1, 2 or 3")
            }
            self = .tab(tab)
        case ("open", let argument?):
            guard let number = Int(argument), number >= 1 else {
                throw LineCommandError("open needs a link number from 1, got \(argument.debugDescription)")
            }
            self = .open(number)
        case ("push", let argument?):
            self = .push(MixedValue(argument: argument))
        case ("back", nil): self = .back
        case ("forward", nil): self = .forward
        case ("root", nil): self = .root
        case ("settings", nil): self = .settings
        case ("show", nil): self = .show
        case ("quit", nil): self = .quit
        default:
            throw LineCommandError("unknown command \(trimmed.debugDescription); commands: \(Self.usage)")
        }
    }
}

/// Why a headless line was refused.
struct LineCommandError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
