import Foundation
@testable import SceneNavigation
import Testing

/// A path is encoded and read record by record through its registry's memo
/// (``RecordMemo``): the bytes must be those one JSONEncoder writes for the
/// whole document, and anything not laid out so is read whole.
@Suite struct RecordMemoTests {
    struct Note: Codable, Hashable, Sendable {
        var text: String
        var marks: [String]
    }

    let types = ScenePathTypes([.init(Int.self), .init(String.self), .init(Double.self), .init(Note.self, tag: "note")])

    /// Strings holding every character the record splitter counts.
    private func path() -> ScenePath {
        var path = ScenePath()
        path.append(5)
        path.append(#"a,"b"]}{[\ /"#)
        path.append(Note(text: "x},{", marks: ["[", "\"", "\\"]))
        path.append(2.5)
        path.append(5)
        return path
    }

    @Test func aPathIsStoredByteForByteAsOneEncoderWritesIt() throws {
        let path = path()
        let records = path.storage.enumerated().map { position, element in
            TaggedRecordOut(position: position, tag: types.registration(forTypeOf: element)?.tag ?? "", value: element)
        }
        let whole = try PathDocument.encode(records)
        #expect(try path.encoded(types: types) == whole)
        #expect(try path.encoded(types: types) == whole, "again, from the memo")
        #expect(PathDocument.records(of: whole)?.count == 5)
        for _ in 0..<2 {
            #expect(try ScenePath.restore(from: whole, types: types, policy: .strict).path == path)
        }
    }

    @Test func anotherLayoutIsReadWhole() throws {
        let spaced = Data(#"{ "version": 1, "elements": [ {"tag": "int", "value": 7} ] }"#.utf8)
        #expect(PathDocument.records(of: spaced) == nil)
        #expect((try ScenePath.restore(from: spaced, types: types, policy: .strict).path.last as? Int) == 7)

        let trailingComma = Data(#"{"elements":[{"tag":"int","value":7},],"version":1}"#.utf8)
        #expect(PathDocument.records(of: trailingComma) == nil)
        // As JSONDecoder reads it (it takes the trailing comma).
        #expect((try ScenePath.restore(from: trailingComma, types: types, policy: .strict).path.last as? Int) == 7)

        let notJSON = Data(#"{"elements":[{"tag":"int","value":7x}],"version":1}"#.utf8)
        #expect(throws: ScenePathError.self) { try ScenePath.restore(from: notJSON, types: types, policy: .lenient) }
    }

    @Test func unknownTagsAndBadValuesAreReportedFromTheMemoToo() throws {
        let data = Data(#"{"elements":[{"tag":"gone","value":1},{"tag":"int","value":"x"},{"tag":"int","value":3}],"version":1}"#.utf8)
        for _ in 0..<2 {
            let restored = try ScenePath.restore(from: data, types: types, policy: .lenient)
            #expect(restored.path.count == 1)
            #expect(restored.dropped.map(\.position) == [0, 1])
        }
    }
}
