import Foundation
@testable import SceneStore
import Testing

/// A window's record as the windows' scene keeps it: what is written reads
/// back, a value that does not read is left out.
@Suite struct WindowRecordTests {
    private static func record(_ id: String, title: String?, pid: Int32? = nil, open: Bool = false) throws -> SessionRecord {
        SessionRecord(
            id: try SceneID(id), created: Date(timeIntervalSince1970: 1_800_000_000.123),
            lastActive: Date(timeIntervalSince1970: 1_800_000_360), open: open, pid: pid, title: title)
    }

    @Test func whatIsWrittenReadsBackTitlesWithSpacesTabsAndNewlinesIncluded() throws {
        let records = try [
            Self.record("w-1", title: nil),
            Self.record("w-2", title: "tab\there\nnew line\r\\ and é", pid: 4711, open: true),
            Self.record("w-3", title: ""),
            Self.record("w-4", title: " - 1 2 "),
        ]
        for record in records {
            #expect(SessionRecord(id: record.id, stored: record.stored) == record, "\(record.stored.debugDescription)")
        }
        #expect(try Self.record("w-5", title: nil, pid: 7, open: true).stored == "1800000000123 1800000360000 1 7")
    }

    @Test(arguments: [
        "", "1 2 1", "x 2 0 -", "1 x 0 -", "1 2 2 -", "1 2 0 0", "1 2 0 -7", "1 2 0 4294967296", "1  2 0 -",
    ])
    func aValueThatDoesNotReadIsLeftOut(_ stored: String) {
        #expect(SessionRecord(id: "w-1", stored: stored) == nil)
    }

    /// Through the scene: a value of another type, or one that does not
    /// read, is left out, and the other records stay.
    @Test func aDamagedRecordInTheScenesValuesIsLeftOutAndTheOthersStay() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("window-records-\(randomToken())")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let directory = SceneDirectory(root: root)
        let kept = try Self.record("w-kept", title: "kept")
        let file = SceneFile(
            scene: SceneID.windows.rawValue, generation: 1, incarnation: "00000000000000aa", writer: .current(),
            values: ["w-kept": .string(kept.stored), "w-int": .int(1), "w-bad": .string("1 2"), "not an id!": .string(kept.stored)])
        _ = try directory.write(file.encoded(), for: .windows)
        let records = try await WindowRecords(storage: directory, logger: .init(label: "test"), readOnly: false).all()
        #expect(records == [kept.id: kept])
    }
}
