import Foundation

/// A history document handled as bytes where its layout allows: the
/// element lists the path codec wrote are moved into the history document
/// (and back out of it) as they are, instead of being parsed into
/// ``StoredElement`` trees and encoded again, which cost a following
/// window most of its time per change. Anything laid out otherwise is
/// left to ``StoredParts``, which reads any path document.
enum HistoryDocument {
    /// How every path document ``PathDocument`` writes begins and ends
    /// (sorted keys, no whitespace): its element list lies between.
    static let head = Array(#"{"elements":"#.utf8)
    static let tail = Array(#","version":1}"#.utf8)

    /// The history document of three path documents: the path's elements,
    /// then `forward` and `recent` when not empty, as ``StoredParts`` writes
    /// it. `nil` when one of them is not laid out as ``PathDocument`` writes.
    static func joined(path: Data, forward: Data, recent: Data) -> Data? {
        guard let elements = elementList(of: path), let forward = elementList(of: forward),
              let recent = elementList(of: recent) else { return nil }
        var document = Data(head)
        document.append(contentsOf: elements)
        if !isEmptyList(forward) {
            document.append(contentsOf: Array(#","forward":"#.utf8))
            document.append(contentsOf: forward)
        }
        if !isEmptyList(recent) {
            document.append(contentsOf: Array(#","recent":"#.utf8))
            document.append(contentsOf: recent)
        }
        document.append(contentsOf: tail)
        return document
    }

    /// The three lists of a stored history, each as a path document cut
    /// from its bytes: the path's elements, and its forward entries and
    /// recently viewed screens (`nil`: the history has none, or an empty
    /// list). `nil` when the document is not a path document (one JSON
    /// object, version 1, with a list of elements) whose members each
    /// appear once, or when `forward` or `recent` is not a list:
    /// ``StoredParts`` decides then.
    static func lists(of data: Data) -> (elements: Data, forward: Data?, recent: Data?)? {
        guard let members = topLevelMembers(of: Array(data)), members["version"] == Array("1".utf8),
              let elements = members["elements"], elements.first == UInt8(ascii: "[") else { return nil }
        var lists: [Data?] = []
        for name in ["forward", "recent"] {
            guard let value = members[name] else {
                lists.append(nil)
                continue
            }
            guard value.first == UInt8(ascii: "[") else { return nil }
            let empty = value.dropFirst().dropLast().allSatisfy { " \n\r\t".utf8.contains($0) }
            lists.append(empty ? nil : document(of: value))
        }
        return (document(of: elements), lists[0], lists[1])
    }

    /// The path document holding the element list `list`.
    private static func document(of list: [UInt8]) -> Data {
        Data(head + list + tail)
    }

    private static func elementList(of document: Data) -> [UInt8]? {
        let bytes = Array(document)
        guard bytes.count >= head.count + tail.count + 2, bytes.starts(with: head), bytes.suffix(tail.count).elementsEqual(tail)
        else { return nil }
        let list = Array(bytes[head.count..<(bytes.count - tail.count)])
        // One list, nothing after it: the value must close where the tail begins.
        guard list.first == UInt8(ascii: "["), valueEnd(in: list, from: 0) == list.count else { return nil }
        return list
    }

    private static func isEmptyList(_ list: [UInt8]) -> Bool {
        list == Array("[]".utf8)
    }

    /// The members of the JSON object `bytes` holds, each value's bytes by
    /// its key; `nil` for anything else, a key with an escape, or a key
    /// that appears twice.
    private static func topLevelMembers(of bytes: [UInt8]) -> [String: [UInt8]]? {
        var index = skipWhitespace(bytes, 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index = skipWhitespace(bytes, index + 1)
        var members: [String: [UInt8]] = [:]
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            return skipWhitespace(bytes, index + 1) == bytes.count ? members : nil
        }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let keyEnd = stringEnd(in: bytes, from: index),
                  !bytes[(index + 1)..<(keyEnd - 1)].contains(UInt8(ascii: "\\")) else { return nil }
            let key = String(decoding: bytes[(index + 1)..<(keyEnd - 1)], as: UTF8.self)
            index = skipWhitespace(bytes, keyEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            let start = skipWhitespace(bytes, index + 1)
            guard let end = valueEnd(in: bytes, from: start), members[key] == nil else { return nil }
            members[key] = Array(bytes[start..<end])
            index = skipWhitespace(bytes, end)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") {
                return skipWhitespace(bytes, index + 1) == bytes.count ? members : nil
            }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipWhitespace(bytes, index + 1)
        }
    }

    /// Where the JSON value starting at `start` ends: after its closing
    /// bracket or quote, or after the last byte of a number or literal.
    /// Strings are skipped whole, so brackets inside them do not count.
    static func valueEnd(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(in: bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(in: bytes, from: index) else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            while index < bytes.count, !",}] \n\r\t".utf8.contains(bytes[index]) { index += 1 }
            return index > start ? index : nil
        }
    }

    /// Just after the closing quote of the string opening at `start`.
    private static func stringEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ start: Int) -> Int {
        var index = start
        while index < bytes.count, " \n\r\t".utf8.contains(bytes[index]) { index += 1 }
        return index
    }
}
