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
    /// list). `nil` unless the document is laid out exactly as ``joined(path:forward:recent:)``
    /// and ``StoredParts`` write it (``head``, the element list, then
    /// `,"forward":[...]` and `,"recent":[...]` when present, ``tail``):
    /// ``StoredParts`` reads any other layout, to the same lists.
    static func lists(of data: Data) -> (elements: Data, forward: Data?, recent: Data?)? {
        let bytes = Array(data)
        guard bytes.count >= head.count + tail.count, bytes.starts(with: head), bytes.suffix(tail.count).elementsEqual(tail)
        else { return nil }
        let end = bytes.count - tail.count
        var index = head.count
        // The list at `index`, after the member key `name` when given
        // (`nil`: not there); `index` moves past it.
        func list(named name: String?) -> [UInt8]? {
            let key = name.map { Array(#","\#($0)":"#.utf8) } ?? []
            let start = index + key.count
            guard bytes[index..<end].starts(with: key), bytes[start] == UInt8(ascii: "["),
                  let close = valueEnd(in: bytes, from: start), close <= end else { return nil }
            index = close
            return Array(bytes[start..<close])
        }
        guard let elements = list(named: nil) else { return nil }
        let forward = list(named: "forward"), recent = list(named: "recent")
        guard index == end else { return nil }
        func nonEmpty(_ list: [UInt8]?) -> Data? {
            list.flatMap { isEmptyList($0) ? nil : document(of: $0) }
        }
        return (document(of: elements), nonEmpty(forward), nonEmpty(recent))
    }

    /// The path document holding the element list `list`.
    private static func document(of list: [UInt8]) -> Data {
        Data(head + list + tail)
    }

    /// The element list of a path document laid out as ``PathDocument``
    /// writes it (``head``, one list, ``tail``), its brackets included;
    /// `nil` for any other layout.
    static func elementList(of document: Data) -> [UInt8]? {
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

    /// Where the JSON array or object opening at `start` ends: after its
    /// closing bracket (`nil` when it does not close). Strings are skipped
    /// whole, so brackets inside them do not count.
    static func valueEnd(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") else { return nil }
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
}
