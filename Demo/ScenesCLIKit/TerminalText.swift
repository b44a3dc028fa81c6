extension String {
    /// This text as it may be printed on a terminal: control characters
    /// (C0, DEL and C1, which start escape sequences that could move the
    /// cursor, retitle the window or rewrite what is on screen) and bidi
    /// controls (which reorder what follows them on the line, so that a
    /// value can show as another) become `\u{XX}`, and a backslash becomes
    /// `\\`, so the printed form tells an escape from the same characters
    /// typed literally. Everything else, non-ASCII text included, is
    /// printed as it is. Use `--json` for the exact value.
    package var terminalSafe: String {
        escapingControlCharacters(andBackslash: true)
    }

    /// Control and bidi characters as `\u{XX}`; backslashes doubled if
    /// told (not for messages whose quoted parts Swift already escaped).
    package func escapingControlCharacters(andBackslash: Bool) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
            (andBackslash && scalar == "\\") || scalar.isUnsafeOnTerminal
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
}

extension Unicode.Scalar {
    /// A C0 or C1 control, DEL, or a bidi control: U+061C (Arabic letter
    /// mark), U+200E and U+200F (left-to-right and right-to-left marks),
    /// U+202A...U+202E (embeddings and overrides) and U+2066...U+2069
    /// (isolates), which terminals apply to the rest of the line.
    package var isUnsafeOnTerminal: Bool {
        switch value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// A scalar that `jsonLine` escapes although JSON allows it raw: DEL,
    /// C1 and the bidi controls (C0 JSON escapes itself).
    package var needsJSONEscapeOnTerminal: Bool {
        value >= 0x7F && isUnsafeOnTerminal
    }
}
