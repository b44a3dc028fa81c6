import Foundation
import SceneStore
import SceneStoreTesting
import Testing

private enum Pane: String, SceneStorable { case mixed, books, library }
private enum Priority: Int, SceneStorable { case low = 1, high = 9 }
private enum Zoom: Double, SceneStorable { case normal = 1, double = 2 }
private struct Flag: RawRepresentable, SceneStorable { var rawValue: Bool }

extension SceneKey where Value == Int {
    fileprivate static var count: Self { .init("count", default: 7) }
}

/// `@SceneStored` reads and writes one key like a variable.
// Hang guard: its slowest test took 9 s in its layer here, 60 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct SceneStoredTests {
    @Test func readsTheDefaultThenWhatWasAssignedAndItSurvivesRelaunch() async throws {
        let fixture = try await SceneStoreFixture()
        do {
            let store = try await fixture.registry.store(for: "main")
            @SceneStored("selectedTab", store: store) var selectedTab = 0
            #expect(selectedTab == 0)
            selectedTab = 2
            #expect(selectedTab == 2)
            await #expect(try fixture.registry.store(for: "main").value(forKey: "selectedTab", default: 0) == 2)
        }
        let relaunched = try await fixture.relaunch()
        let again = try await relaunched.store(for: "main")
        @SceneStored("selectedTab", store: again) var selectedTab = 0
        #expect(selectedTab == 2)
        await fixture.tearDown()
    }

    @Test func everyKindOptionalsAndRawValueTypesRoundTrip() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        @SceneStored("b", store: store) var bool = false
        @SceneStored("d", store: store) var double = 0.0
        @SceneStored("s", store: store) var string = ""
        @SceneStored("u", store: store) var url = URL(fileURLWithPath: "/")
        @SceneStored("data", store: store) var data = Data()
        @SceneStored("tab", store: store) var tab = Pane.mixed
        @SceneStored("priority", store: store) var priority = Priority.low
        @SceneStored("zoom", store: store) var zoom = Zoom.normal
        @SceneStored("flag", store: store) var flag = Flag(rawValue: false)
        bool = true; double = 2.5; string = "hi"; url = URL(fileURLWithPath: "/tmp"); data = Data([1, 2])
        tab = .books; priority = .high; zoom = .double; flag = Flag(rawValue: true)

        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.snapshot == [
            "b": .bool(true), "d": .double(2.5), "s": .string("hi"), "u": .url(URL(fileURLWithPath: "/tmp")),
            "data": .data(Data([1, 2])), "tab": .string("books"), "priority": .int(9), "zoom": .double(2),
            "flag": .bool(true),
        ])
        @SceneStored("tab", store: relaunched) var restoredTab = Pane.mixed
        @SceneStored("zoom", store: relaunched) var restoredZoom = Zoom.normal
        #expect(restoredTab == .books && restoredZoom == .double)
        await fixture.tearDown()
    }

    @Test func assigningNilToAnOptionalRemovesTheKey() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        @SceneStored("query", store: store) var query: String? = nil
        query = "dune"
        #expect(store.snapshot["query"] == .string("dune"))
        query = nil
        #expect(store.snapshot["query"] == nil)
        #expect(query == nil)
        await fixture.tearDown()
    }

    @Test func aValueOfAnotherKindReadsAsTheDefault() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set("three", forKey: "count")
        @SceneStored("count", store: store) var count = 5
        #expect(count == 5)
        await fixture.tearDown()
    }

    @Test func aTypedKeyGivesTheNameAndTheDefault() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        @SceneStored(.count, store: store) var count
        #expect(count == 7)
        count += 1
        #expect(store[.count] == 8)
        await fixture.tearDown()
    }

    /// Over the value limit: the assignment logs a warning and the old
    /// value stays; the projected `set` throws the store's error instead.
    @Test func aRefusedAssignmentIsLoggedAndKeepsTheOldValue() async throws {
        let log = LogCapture()
        var limits = SceneRegistry.Limits()
        limits.maxValueBytes = 8
        let fixture = try await SceneStoreFixture(configuration: .init(savePolicy: .onFlush, limits: limits, logger: log.logger()))
        let store = try await fixture.registry.store(for: "main")
        @SceneStored("name", store: store) var name = ""
        name = "short"
        name = "far too long for the limit"
        #expect(name == "short")
        let warnings = log.warnings()
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("name") == true && warnings.first?.contains("limit") == true)
        #expect(throws: SceneStoreError.valueTooLarge(key: "name", size: 26, limit: 8)) {
            try $name.set("far too long for the limit")
        }
        #expect(name == "short")
        await fixture.tearDown()
    }

    @Test func projectedValueStreamsValuesAndUpdatesAtomically() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        @SceneStored("count", store: store) var count = 0
        var values = $count.values.makeAsyncIterator()
        #expect(await values.next() == 0)

        let counter = $count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask { try await counter.update { $0 += 1 } }
            }
            try await group.waitForAll()
        }
        #expect(count == 50)
        #expect(await values.next() == 50)
        // Each update is durable when it returns, whatever the save policy.
        let afterCrash = try await fixture.crash().store(for: "main")
        @SceneStored("count", store: afterCrash) var restored = 0
        #expect(restored == 50)
        afterCrash.removeValue(forKey: "count")
        #expect(restored == 0 && afterCrash.snapshot["count"] == nil)
        await fixture.tearDown()
    }
}
