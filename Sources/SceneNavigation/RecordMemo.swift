import Foundation
import SceneStore

/// The element records a registry (``ScenePathTypes``) encoded and decoded
/// lately, so that a path is encoded and read one new element at a time:
/// a window's history holds the same elements change after change (the
/// path, its forward entries, 50 recently viewed screens), and each change
/// adds one or two. Measured here (release): the demo's Mixed history of
/// 52 elements took 240 µs to encode and 255 µs to decode through
/// JSONEncoder and JSONDecoder, on each side of every mirrored push.
///
/// A record's bytes are what JSONEncoder writes for it alone, the same as
/// within the document (sorted keys, no whitespace), so a path is stored
/// byte for byte as before. Equal elements share the bytes of the first
/// encoded: a type whose equal values encode differently (`0.0` and
/// `-0.0`) stores one of them, as ``ScenePath/encoded(types:)`` says.
/// Decoding goes by the bytes, which decide the outcome alone. At most
/// ``capacity`` entries each way; then it starts over.
final class RecordMemo: Sendable {
    static let capacity = 1024

    /// `@unchecked`: AnyHashable is not Sendable, the element it wraps is.
    private struct ElementKey: Hashable, @unchecked Sendable {
        let type: ObjectIdentifier
        let element: AnyHashable
    }

    private let encoded = Locked<[ElementKey: [UInt8]]>([:])
    /// The decodings worth keeping: never `.undecodable` (a failure is
    /// decoded again, with its error).
    private let decoded = Locked<[[UInt8]: TaggedRecordIn.Outcome]>([:])

    /// The record of `element` (`registration`'s type) at `position`.
    func record(
        of element: any ScenePathElement, _ registration: ScenePathTypes.Registration, at position: Int
    ) throws(ScenePathError) -> [UInt8] {
        let key = ElementKey(type: registration.typeID, element: AnyHashable(element))
        if let bytes = encoded.withLock({ $0[key] }) { return bytes }
        let bytes = try PathDocument.encodeAlone(TaggedRecordOut(position: position, tag: registration.tag, value: element))
        encoded.withLock { memo in
            if memo.count >= Self.capacity { memo.removeAll(keepingCapacity: true) }
            memo[key] = bytes
        }
        return bytes
    }

    /// What `record` (the bytes of one record) decodes to with `types`;
    /// `nil` when they are not JSON.
    func outcome(of record: [UInt8], types: ScenePathTypes) -> TaggedRecordIn.Outcome? {
        if let outcome = decoded.withLock({ $0[record] }) { return outcome }
        guard let outcome = PathDocument.decodeAlone(record, types: types)?.outcome else { return nil }
        if case .undecodable = outcome { return outcome }
        decoded.withLock { memo in
            if memo.count >= Self.capacity { memo.removeAll(keepingCapacity: true) }
            memo[record] = outcome
        }
        return outcome
    }
}

extension PathDocument {
    /// The document of `records`, each the bytes of one encoded record,
    /// laid out as ``encode(_:)`` writes it.
    static func document(ofRecords records: [[UInt8]]) -> Data {
        Data(HistoryDocument.head + Array("[".utf8) + Array(records.joined(separator: Array(",".utf8)))
            + Array("]".utf8) + HistoryDocument.tail)
    }

    /// The bytes of each record of a document laid out as ``encode(_:)``
    /// writes it; `nil` for any other layout (the whole document is then
    /// decoded, and judged, at once).
    static func records(of data: Data) -> [[UInt8]]? {
        guard let list = HistoryDocument.elementList(of: data) else { return nil }
        if list.count == 2 { return [] }
        var records: [[UInt8]] = []
        var index = 1
        while true {
            guard index < list.count, list[index] == UInt8(ascii: "{"),
                  let end = HistoryDocument.valueEnd(in: list, from: index), end < list.count else { return nil }
            records.append(Array(list[index..<end]))
            if list[end] == UInt8(ascii: "]") { return end == list.count - 1 ? records : nil }
            guard list[end] == UInt8(ascii: ",") else { return nil }
            index = end + 1
        }
    }
}
