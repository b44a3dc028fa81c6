import Foundation

/// A growing buffer of JSON text.
struct JSONText {
    var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// JSON's whitespace: space, line feed, carriage return, tab.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func utf8(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Decimal digits, without a `String` in between.
    mutating func number(_ value: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// `"key": {"type": "int", "value": 5}`
    mutating func member(_ key: String, _ value: SceneValue) {
        string(key)
        raw(Self.memberTypeOpening)
        utf8(value.kind.rawValue)
        raw(Self.memberValueOpening)
        self.value(value)
        raw("}")
    }

    /// How many bytes ``member(_:_:)`` appends, without encoding them:
    /// what a log's size bound needs for the entries a record replaces.
    /// (`JSONTextTests` checks it against the encoding.)
    static func memberByteCount(_ key: String, _ value: SceneValue) -> Int {
        let valueCount: Int
        switch SceneValueJSON(value) {
        case .bool(let bool): valueCount = bool ? 4 : 5
        case .number(let text): valueCount = text.utf8.count
        case .string(let text): valueCount = stringByteCount(text)
        }
        return stringByteCount(key) + Self.memberTypeOpening.utf8CodeUnitCount + value.kind.rawValue.utf8.count
            + Self.memberValueOpening.utf8CodeUnitCount + valueCount + 1
    }

    /// How many bytes ``string(_:)`` appends for `text`, quotes included.
    static func stringByteCount(_ text: String) -> Int {
        var count = 2
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09: count += 2
            case 0..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }

    private static let memberTypeOpening: StaticString = ": {\"type\": \""
    private static let memberValueOpening: StaticString = "\", \"value\": "

    /// `{"pid": 4242, "token": "9b1d07c3e5a2f468"}`
    mutating func writer(_ writer: WriterIdentity) {
        raw("{\"pid\": ")
        if writer.pid < 0 { raw("-") }
        number(UInt64(writer.pid.magnitude))
        raw(", \"token\": ")
        string(writer.token)
        raw("}")
    }

    mutating func value(_ value: SceneValue) {
        switch SceneValueJSON(value) {
        case .bool(let bool): raw(bool ? "true" : "false")
        case .number(let text): utf8(text)
        case .string(let text): string(text)
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else (including non-ASCII UTF-8) as is.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most keys and values need no escape: their bytes in one copy.
        let plain = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain != true { escaped(text) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A byte a JSON string cannot hold as is: a quote, a backslash, a control character.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// `text`'s bytes, escaped where JSON needs it, without the quotes.
    private mutating func escaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
    }
}
