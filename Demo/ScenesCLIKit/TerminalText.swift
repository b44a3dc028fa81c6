extension String {
    /// This text as it may be printed on a terminal: control characters
    /// (C0, DEL and C1, which start escape sequences that could move the
    /// cursor, retitle the window or rewrite what is on screen) become
    /// `\u{XX}`, and a backslash becomes `\\`, so the printed form tells
    /// an escape from the same characters typed literally. Everything
    /// else, non-ASCII text included, is printed as it is. Use `--json`
    /// for the exact value.
    package var terminalSafe: String {
        escapingControlCharacters(andBackslash: true)
    }

    /// Control characters as `\u{XX}`; backslashes doubled if told (not
    /// for messages whose quoted parts Swift already escaped).
    package func escapingControlCharacters(andBackslash: Bool) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
            (andBackslash && scalar == "\\") || Self.isControl(scalar)
        }
        guard unicodeScalars.contains(where: needsEscape) else { return self }
        var escaped = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if !needsEscape(scalar) {
                escaped.append(scalar)
            } else if scalar == "\\" {
                escaped.append(contentsOf: #"\\"#.unicodeScalars)
            } else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped.append(contentsOf: "\\u{\(hex.count < 2 ? "0" + hex : hex)}".unicodeScalars)
            }
        }
        return String(escaped)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
