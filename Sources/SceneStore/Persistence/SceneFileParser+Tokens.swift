import Foundation

/// The tokens of a scene file's JSON, read from the parser's bytes.
extension SceneFileParser {
    /// `-?[0-9]+` that ends the number and fits an `Int`, consumed; `nil`
    /// (nothing consumed) for any other number, left to the full reading.
    /// What it takes, that reading (`numberText()`, `Int(text)`) takes too,
    /// to the same value and end: it only saves time. Measured 2026-11-29,
    /// `scenes-lab bench codec --ints --repetitions 4000` (release; three
    /// series, in turns with a build without it, medians of 5, 6 and 9
    /// invocations): a scene of ints only decodes 1.2-1.3 µs (8-9%) faster
    /// at 100 keys, 9-12.5 µs (8-10.5%) at 1000, 74-103 µs (5.5-8%) at
    /// 10 000; `bench format-probe`'s scene, one value in six an int,
    /// within the noise (-1.5 to +5%).
    mutating func plainInteger() -> Int? {
        skipWhitespace()
        var cursor = index
        let negative = cursor < bytes.count && bytes[cursor] == UInt8(ascii: "-")
        if negative { cursor += 1 }
        let digits = cursor
        var magnitude: UInt64 = 0
        while cursor < bytes.count, bytes[cursor] &- UInt8(ascii: "0") < 10 {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[cursor] &- UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            cursor += 1
        }
        guard cursor > digits else { return nil }
        if cursor < bytes.count {
            switch bytes[cursor] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"): return nil
            default: break
            }
        }
        let value: Int
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { return nil }
            value = magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        } else {
            guard magnitude <= UInt64(Int.max) else { return nil }
            value = Int(magnitude)
        }
        index = cursor
        return value
    }

    /// Consumes `token` if the bytes at the cursor are exactly it.
    mutating func consume(_ token: [UInt8]) -> Bool {
        guard index + token.count <= bytes.count, let base = bytes.baseAddress else { return false }
        let equal = token.withUnsafeBytes { token in
            token.baseAddress.map { memcmp(base + index, $0, token.count) == 0 } ?? true
        }
        if equal { index += token.count }
        return equal
    }

    mutating func string() throws(SceneFile.Problem) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        // Fast path: no escapes.
        var ascii = true
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            guard bytes[index] >= 0x20 else { throw failure("control character in a string") }
            if bytes[index] >= 0x80 { ascii = false }
            index += 1
        }
        guard index < bytes.count else { throw failure("unterminated string") }
        if ascii, bytes[index] == UInt8(ascii: "\"") {
            // Plain ASCII is valid UTF-8: nothing to copy or validate first.
            defer { index += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        var utf8 = Array(bytes[start..<index])
        while bytes[index] == UInt8(ascii: "\\") {
            index += 1
            try escape(into: &utf8)
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                guard bytes[index] >= 0x20 else { throw failure("control character in a string") }
                utf8.append(bytes[index])
                index += 1
            }
            guard index < bytes.count else { throw failure("unterminated string") }
        }
        index += 1  // closing quote
        guard let text = String(validating: utf8, as: UTF8.self) else { throw failure("invalid UTF-8") }
        return text
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(SceneFile.Problem) {
        guard index < bytes.count else { throw failure("unterminated escape") }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(code)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("lone surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("lone surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
            utf8.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func hex4() throws(SceneFile.Problem) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The text of a JSON number (validated by its later conversion).
    mutating func numberText() throws(SceneFile.Problem) -> String {
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                 UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                index += 1
            default:
                guard index > start else { throw failure("value expected") }
                return String(decoding: bytes[start..<index], as: UTF8.self)
            }
        }
        guard index > start else { throw failure("value expected") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func integer<I: FixedWidthInteger>(as type: I.Type, _ field: String) throws(SceneFile.Problem) -> I {
        skipWhitespace()
        guard let value = I(try numberText()) else { throw failure("\(field) is not a \(I.self)") }
        return value
    }

    mutating func literal(_ word: String) throws(SceneFile.Problem) {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw failure("invalid literal") }
            index += 1
        }
    }

    mutating func expect(_ byte: UInt8) throws(SceneFile.Problem) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else {
            throw failure("'\(Character(Unicode.Scalar(byte)))' expected")
        }
        index += 1
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    func failure(_ what: String) -> SceneFile.Problem {
        .malformed("\(what) at byte \(index)")
    }
}
