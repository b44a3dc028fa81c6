/// A key press, decoded from the bytes a terminal in raw mode sends.
enum Key: Equatable, Sendable {
    case up, down, left, right
    case enter, tab, backspace, escape
    case character(Character)
    /// Ctrl + a letter (Ctrl-C is `.control("c")`).
    case control(Character)

    /// Decodes one read's worth of bytes. Arrow keys come as `ESC [ A` or
    /// `ESC O A`; a lone `ESC` is the Escape key. Bytes that are not valid
    /// UTF-8 or unknown sequences are skipped.
    static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x1B:
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    continue
                }
                index += 1
                // Skip parameters (digits and ';') up to the final byte.
                while index < bytes.count, (0x30...0x3F).contains(bytes[index]) { index += 1 }
                guard index < bytes.count else { continue }
                let final = bytes[index]
                index += 1
                switch final {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x09: keys.append(.tab)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x01...0x1A: keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
            case 0x20...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
            default:
                // A multi-byte UTF-8 character: take its whole sequence.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                let end = min(bytes.count, index - 1 + length)
                if let text = String(validating: bytes[(index - 1)..<end], as: UTF8.self), let character = text.first {
                    keys.append(.character(character))
                }
                index = end
            }
        }
        return keys
    }
}
