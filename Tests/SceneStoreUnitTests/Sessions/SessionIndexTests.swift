import Foundation
@testable import SceneStore
import Testing

/// The window records' index file: what it writes reads back; a damaged
/// line is left out, a newer format refused.
@Suite struct SessionIndexTests {
    private static func record(_ id: String, title: String?, pid: Int32? = nil, open: Bool = false) throws -> SessionRecord {
        SessionRecord(
            id: try SceneID(id), created: Date(timeIntervalSince1970: 1_800_000_000.123),
            lastActive: Date(timeIntervalSince1970: 1_800_000_360), open: open, pid: pid, title: title)
    }

    @Test func whatIsWrittenReadsBackTitlesWithTabsNewlinesAndBackslashesIncluded() throws {
        let records = try [
            Self.record("w-1", title: nil),
            Self.record("w-2", title: "tab\\there\nnew line\r\\ and é", pid: 4711, open: true),
            Self.record("w-3", title: ""),
            Self.record("w-4", title: "-"),
        ]
        let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        let data = SessionIndex.encode(byID)
        #expect(String(decoding: data, as: UTF8.self).split(separator: "\n").count == 5, "one line per record")
        let read = try SessionIndex.parse(data, path: "index")
        #expect(read == byID)
    }

    @Test func aDamagedLineIsLeftOutAndTheOthersStay() throws {
        let text = """
            scenestore.sessions 1
            w-1\t1\t2\t0\t-\t-
            w-2\tnot a number\t2\t0\t-\t-
            .bad\t1\t2\t0\t-\t-
            w-3\t1\t2\t1\t7\t=ok
            w-4\t1\t2\t0\t-\t=bad escape \\q

            """
        let read = try SessionIndex.parse(Data(text.utf8), path: "index")
        #expect(read.keys.map(\.rawValue).sorted() == ["w-1", "w-3"])
        #expect(read["w-3"]?.title == "ok")
        #expect(read["w-3"]?.pid == 7)
    }

    @Test func aNewerFormatIsRefused() {
        #expect(throws: SceneStoreError.self) {
            try SessionIndex.parse(Data("scenestore.sessions 2\nw-1\t1\t2\t0\t-\t-\n".utf8), path: "index")
        }
    }
}
