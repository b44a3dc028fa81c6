import MultiProcessSupport
import Testing

/// The history check itself, on made-up histories: it must catch the
/// losses it exists for and accept every order that concurrency allows.
struct HistoryCheckTests {
    func set(_ client: String, _ value: String, _ begin: Int, _ end: Int?, key: String = "k") -> HistoryOperation {
        HistoryOperation(client: client, index: begin, kind: .set(key: key, value: value), begin: begin, end: end)
    }

    /// The stale-view loss: A writes x, B writes y, A writes x again
    /// (A still showed x); y on disk means A's last write was lost.
    @Test func aWriteSkippedForAStaleViewIsCaught() {
        let history = [set("A", "x", 0, 10), set("B", "y", 20, 30), set("A", "x", 40, 50)]
        #expect(HistoryCheck.admissible("k", after: history) == ["x"])
        #expect(HistoryCheck.violations(stored: ["k": "y"], keys: ["k"], history: history).count == 1)
        #expect(HistoryCheck.violations(stored: ["k": "x"], keys: ["k"], history: history).isEmpty)
    }

    @Test func overlappingWritesMayEndInEitherOrder() {
        let history = [set("A", "x", 0, 30), set("B", "y", 10, 20)]
        #expect(HistoryCheck.admissible("k", after: history) == ["x", "y"])
    }

    @Test func anUnacknowledgedWriteMayOrMayNotHaveHappened() {
        let history = [set("A", "x", 0, 10), set("B", "y", 20, nil), set("A", "z", 30, 40)]
        #expect(HistoryCheck.admissible("k", after: history) == ["y", "z"])
        let alone = [set("B", "y", 20, nil)]
        #expect(HistoryCheck.admissible("k", after: alone) == [nil, "y"])
    }

    @Test func aDiscardOrARemoveLeavesTheKeyAbsent() {
        let discard = HistoryOperation(client: "B", index: 2, kind: .discard, begin: 20, end: 30)
        #expect(HistoryCheck.admissible("k", after: [set("A", "x", 0, 10), discard]) == [nil])
        let remove = HistoryOperation(client: "B", index: 2, kind: .remove(key: "k"), begin: 5, end: 30)
        #expect(HistoryCheck.admissible("k", after: [set("A", "x", 0, 10), remove]) == [nil, "x"])
        #expect(HistoryCheck.violations(stored: ["k": "w"], keys: ["k"], history: [set("A", "x", 0, 10)]).count == 1,
                "a value nobody wrote")
    }

    @Test func linesParseIntoOperations() {
        let lines = ["ready 12", "begin 1 100 set k0 c.1", "ack 1 150", "begin 2 200 discard", "fail 2 locked",
                     "begin 3 300 update k1 c.3", "ack 3 320", "begin 4 400 remove k2"]
        let operations = HistoryOperation.parse(client: "c", lines: lines)
        #expect(operations.map(\.index) == [1, 2, 3, 4])
        #expect(operations.map(\.end) == [150, nil, 320, nil])
        #expect(operations[0].writes("k0") == .some("c.1"))
        #expect(operations[1].writes("k1") == .some(nil))
        #expect(operations[3].writes("k0") == nil)
    }
}
