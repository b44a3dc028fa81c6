import Foundation
import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// Compact JSON with sorted keys, on one line. Exact: a string decodes to
/// what was stored. DEL, the C1 controls and the bidi controls, which JSON
/// allows raw, are escaped too (`\u007f`, `\u009b`, `\u202e`), so the
/// line is safe on a terminal.
package func jsonLine<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = String(decoding: try encoder.encode(value), as: UTF8.self)
    guard json.unicodeScalars.contains(where: \.needsJSONEscapeOnTerminal) else { return json }
    var escaped = String.UnicodeScalarView()
    for scalar in json.unicodeScalars {
        if scalar.needsJSONEscapeOnTerminal {
            let hex = String(scalar.value, radix: 16)
            escaped.append(contentsOf: "\\u\(String(repeating: "0", count: 4 - hex.count))\(hex)".unicodeScalars)
        } else {
            escaped.append(scalar)
        }
    }
    return String(escaped)
}

/// Appends `text` to `out` as a JSON string, escaped as `jsonLine` escapes
/// it: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, `\u00XX` for the
/// other C0 controls, `\uXXXX` for the scalars unsafe on a terminal.
package func appendJSONString(_ text: String, to out: inout String) {
    out += "\""
    guard text.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.isUnsafeOnTerminal }) else {
        out += text
        out += "\""
        return
    }
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\u{08}": out += "\\b"
        case "\t": out += "\\t"
        case "\n": out += "\\n"
        case "\u{0C}": out += "\\f"
        case "\r": out += "\\r"
        case _ where scalar.isUnsafeOnTerminal:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    out += "\""
}

/// Writes one line to stdout at once (scripts and tests read lines),
/// ignoring a reader that went away.
package func emit(_ line: String) {
    _ = writeLine(line)
}

/// Writes one line to stdout with write(2), so that a closed pipe shows as
/// `EPIPE` (with SIGPIPE ignored) instead of going unnoticed.
/// - Returns: `nil` once every byte is written, else the errno.
package func writeLine(_ line: String) -> Int32? {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if written == -1 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return nil
}

/// What `scenes --version` prints: the scene file format is the one the
/// library writes.
package let scenesVersion = "scenes 1.0.0-dev (scene file format \(SceneFile.currentVersion))"
