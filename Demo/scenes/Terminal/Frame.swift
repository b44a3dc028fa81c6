import ScenesCLIKit
/// A screenful of text lines, each made of styled runs, turned into one
/// string that redraws the whole terminal in place (no clearing, so no
/// flicker): every row is rewritten and cleared to its end.
struct Frame: Equatable {
    enum Style: Equatable {
        case plain, bold, dim, reverse

        var code: String {
            switch self {
            case .plain: ""
            case .bold: ANSI.bold
            case .dim: ANSI.dim
            case .reverse: ANSI.reverse
            }
        }
    }

    struct Run: Equatable {
        var text: String
        var style: Style
    }

    typealias Line = [Run]

    var lines: [Line]

    /// The escape sequences drawing the frame on a `columns` x `rows`
    /// terminal: lines longer than the width are cut, ending in "…";
    /// missing rows are blank.
    func rendered(columns: Int, rows: Int) -> String {
        var output = ""
        for row in 0..<rows {
            output += ANSI.moveTo(row: row + 1)
            var room = columns
            for run in row < lines.count ? lines[row] : [] where room > 0 {
                // Stored strings and catalog titles never reach the terminal raw.
                let safe = run.text.terminalSafe
                let text = safe.count > room ? String(safe.prefix(room - 1)) + "…" : safe
                room -= text.count
                output += run.style == .plain ? text : run.style.code + text + ANSI.resetStyle
            }
            output += ANSI.clearToEndOfLine
        }
        return output
    }
}

extension Frame.Line {
    /// A line of one run.
    static func text(_ text: String, _ style: Frame.Style = .plain) -> Frame.Line {
        [Frame.Run(text: text, style: style)]
    }
}
