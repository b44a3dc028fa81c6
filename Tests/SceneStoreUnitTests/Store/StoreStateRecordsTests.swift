@testable import SceneStore
import Testing

/// Records another process appended, applied by the store's state to the
/// keys they touch (``StoreState/adoptRecords(_:limits:)``): what a reading
/// of the whole file would have made of them, or nothing at all.
struct StoreStateRecordsTests {
    private let main: SceneID
    private let other = WriterIdentity(pid: 2, token: "other")

    init() throws {
        main = SceneID("main")
    }

    private func opened(_ values: [String: SceneValue]) -> StoreState {
        var state = StoreState(savePolicy: .onFlush)
        state.load(SceneFile(scene: "main", generation: 5, incarnation: "inc", writer: other, values: values))
        return state
    }

    private func record(_ generation: UInt64, set: [(String, SceneValue)] = [], removed: [String] = []) -> SceneFileRecord {
        SceneFileRecord(generation: generation, writer: other, set: set, removed: removed)
    }

    @Test func recordsAfterTheHeldVersionChangeTheirKeysAndKeepPendingEdits() throws {
        var state = opened(["a": .int(1), "b": .int(2), "untouched": .string("u")])
        _ = try state.applyLocal(key: "b", value: .string("mine"), sceneLimit: 1 << 20, scene: main)
        let records = [
            record(5, set: [("a", .int(99))]),  // held already: passed over
            record(6, set: [("a", .int(10)), ("b", .int(20))]),
            record(7, set: [("c", .int(3))], removed: ["a"]),
        ]
        let applied = state.adoptRecords(records, limits: .largest)
        #expect(applied)
        #expect(state.values == ["b": .string("mine"), "c": .int(3), "untouched": .string("u")])
        #expect(state.diskFile?.values == ["b": .int(20), "c": .int(3), "untouched": .string("u")])
        #expect(state.disk == DiskVersion(incarnation: "inc", generation: 7))
        #expect(state.diskFile?.writer == other)
        #expect(state.byteCount == StoreState.cost(key: "b", value: .string("mine")) + StoreState.cost(key: "c", value: .int(3))
            + StoreState.cost(key: "untouched", value: .string("u")))
        // Nothing new: nothing changes.
        let again = state.adoptRecords(Array(records.prefix(2)), limits: .largest)
        #expect(again)
        #expect(state.disk.generation == 7)
    }

    @Test func aGapOrALimitLeavesTheStateAsItWas() throws {
        var limits = SceneRegistry.Limits()
        limits.maxValueBytes = 64
        limits.maxSceneBytes = 100
        var state = opened(["a": .string(String(repeating: "x", count: 40))])
        let before = (state.values, state.diskFile, state.byteCount)
        let refused = [
            [record(7, set: [("b", .int(1))])],  // generation 6 is missing
            [record(6, set: [("b", .int(1))]), record(8, set: [("c", .int(1))])],
            [record(6, set: [("b", .string(String(repeating: "y", count: 65)))])],  // a value above the limit
            [record(6, set: [("b", .string(String(repeating: "y", count: 60)))])],  // the scene above the limit
            [record(6, set: [(String(repeating: "k", count: 300), .int(1))])],  // a key above the limit
        ]
        for records in refused {
            let applied = state.adoptRecords(records, limits: limits)
            #expect(!applied)
            #expect(state.values == before.0 && state.diskFile == before.1 && state.byteCount == before.2)
        }
        // Removing makes room: within the limits again.
        let roomMade = state.adoptRecords([record(6, set: [("b", .string(String(repeating: "y", count: 60)))], removed: ["a"])], limits: limits)
        #expect(roomMade)
        #expect(state.values.keys.sorted() == ["b"])
    }
}
