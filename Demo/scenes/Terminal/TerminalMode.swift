import Foundation

/// The terminal as the interactive UI needs it: raw input (no line
/// buffering, no echo, no signals from Ctrl-C), the alternate screen, the
/// cursor hidden. ``restore()`` puts back exactly what was there.
final class TerminalMode {
    private var saved: termios
    private var restored = false

    enum Failure: Error, CustomStringConvertible {
        case notATerminal(errno: Int32)

        var description: String {
            switch self {
            case .notATerminal(let code): "stdin is not a terminal (tcgetattr: \(String(cString: strerror(code))))"
            }
        }
    }

    /// Switches the terminal over.
    /// - Throws: ``Failure/notATerminal(errno:)`` when `tcgetattr` fails;
    ///   nothing is changed then.
    init() throws {
        var attributes = termios()
        guard tcgetattr(STDIN_FILENO, &attributes) == 0 else { throw Failure.notATerminal(errno: errno) }
        saved = attributes
        attributes.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        attributes.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        attributes.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &attributes.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &attributes)
        TerminalOutput.write(ANSI.enterAlternateScreen + ANSI.hideCursor + ANSI.clearScreen)
    }

    /// Leaves the alternate screen, shows the cursor and restores the
    /// saved attributes. Idempotent.
    func restore() {
        guard !restored else { return }
        restored = true
        // TCSANOW: keys typed meanwhile stay for whoever reads the terminal next.
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        TerminalOutput.write(ANSI.resetStyle + ANSI.showCursor + ANSI.leaveAlternateScreen)
    }

    deinit {
        restore()
    }

    /// Columns and rows of the terminal (80x24 when it cannot say).
    static func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}

/// The escape sequences the UI uses.
enum ANSI {
    static let escape = "\u{1B}["
    static let enterAlternateScreen = escape + "?1049h"
    static let leaveAlternateScreen = escape + "?1049l"
    static let hideCursor = escape + "?25l"
    static let showCursor = escape + "?25h"
    static let clearScreen = escape + "2J"
    static let clearToEndOfLine = escape + "K"
    static let resetStyle = escape + "0m"
    static let bold = escape + "1m"
    static let dim = escape + "2m"
    static let reverse = escape + "7m"

    static func moveTo(row: Int, column: Int = 1) -> String {
        escape + "\(row);\(column)H"
    }
}

/// Writes to stdout with one `write(2)` per call (retried until all is out),
/// so that a frame reaches the terminal in one piece.
enum TerminalOutput {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(STDOUT_FILENO, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}
