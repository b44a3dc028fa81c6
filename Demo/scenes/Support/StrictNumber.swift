/// Numbers as `scenes set` takes them: JSON's number syntax, nothing a
/// user is unlikely to have meant.
///
/// * `--int`: `-?(0|[1-9][0-9]*)` within 64 bits. No `+`, no spaces, no
///   leading zeros (`010` could be meant as octal), no `0x10`, no `1_000`.
/// * `--double`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, and
///   exactly `nan`, `inf` and `-inf`. A digit must stand on both sides of
///   the point (`.5` and `1.` are refused: say `0.5`, `1` or `1.0`). A
///   number whose exponent takes it past the range of a double (`1e400`
///   would become `inf`, `1e-400` would become `0`) is refused; so are
///   hexadecimal floats (`0x1p3`) and NaN spellings with a sign or payload
///   (`-nan`, `snan`, `nan(0x1)`).
enum StrictNumber {
    static func int(_ text: String) -> Int? {
        guard isInteger(Substring(text)) else { return nil }
        return Int(text)
    }

    static func double(_ text: String) -> Double? {
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: break
        }
        guard isDecimal(text), let value = Double(text), value.isFinite else { return nil }
        // Underflow: digits other than zero that came out as zero.
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        if value == 0, mantissa.contains(where: { $0.isASCIIDigit && $0 != "0" }) { return nil }
        return value
    }

    /// `-?(0|[1-9][0-9]*)`
    private static func isInteger(_ text: Substring) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text
        guard let first = digits.first, digits.allSatisfy(\.isASCIIDigit) else { return false }
        return first != "0" || digits.count == 1
    }

    /// The integer part, then an optional fraction and exponent.
    private static func isDecimal(_ text: String) -> Bool {
        var rest = Substring(text)
        let exponentStart = rest.firstIndex { $0 == "e" || $0 == "E" }
        if let exponentStart {
            var exponent = rest[rest.index(after: exponentStart)...]
            if exponent.hasPrefix("+") || exponent.hasPrefix("-") { exponent = exponent.dropFirst() }
            guard !exponent.isEmpty, exponent.allSatisfy(\.isASCIIDigit) else { return false }
            rest = rest[..<exponentStart]
        }
        if let point = rest.firstIndex(of: ".") {
            let fraction = rest[rest.index(after: point)...]
            guard !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return false }
            rest = rest[..<point]
        }
        return isInteger(rest)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { unicodeScalars.count == 1 && ("0"..."9").contains(self) }
}
