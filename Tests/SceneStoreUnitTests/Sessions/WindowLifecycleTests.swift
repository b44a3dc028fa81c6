import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// Window scenes in one process, each registry standing in for a launch:
/// quit and relaunch, a crash, two launches at once, closing for good,
/// expiry on an injected calendar clock.
// Hang guard: its slowest test took 14 s in its layer here, ran into its old limit in the whole suite (298 s, every test at once on 2 cores); 8 minutes.
@Suite(.timeLimit(.minutes(8))) struct WindowLifecycleTests {
    /// A calendar clock the test moves.
    final class Calendar: Sendable {
        private let date = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    static func fixture(
        _ calendar: Calendar = Calendar(), expiry: Duration? = nil, savePolicy: SceneRegistry.SavePolicy = .default
    ) async throws -> SceneStoreFixture {
        var configuration = SceneRegistry.Configuration.testing(savePolicy: savePolicy)
        configuration.watcher = .none
        configuration.now = { calendar.now }
        configuration.restorableExpiry = expiry
        return try await SceneStoreFixture(configuration: configuration)
    }

    @Test func quittingKeepsEveryOpenWindowForTheNextLaunchMostRecentFirst() async throws {
        let calendar = Calendar()
        let fixture = try await Self.fixture(calendar)
        var ids: [SceneID] = []
        for index in 0..<3 {
            let window = try await fixture.registry.newScene(title: "window \(index)")
            try window.set(index, forKey: "index")
            ids.append(window.id)
            calendar.advance(by: 60)
        }
        let open = try await fixture.registry.sessions()
        #expect(open.allSatisfy { $0.state == .open(pid: getpid()) }, "\(open)")

        let relaunched = try await fixture.relaunch()
        let restorable = try await relaunched.scenesToRestore()
        // All three quit at the same instant; the latest made comes first.
        #expect(restorable.map(\.id) == ids.reversed())
        #expect(restorable.allSatisfy { $0.state == .restorable(.relaunch) })
        #expect(restorable.map(\.title) == ["window 2", "window 1", "window 0"])
        for (index, id) in ids.enumerated() {
            let store = try #require(try await relaunched.reopen(id))
            #expect(store.value(forKey: "index", default: -1) == index, "the edits made before quitting were saved")
        }
        #expect(try await relaunched.scenesToRestore().isEmpty, "reopened windows are open again")
        await fixture.tearDown()
    }

    /// Saves on flush only: under the default policy the second set may be
    /// saved before the crash.
    @Test func aCrashLeavesTheWindowsToRecoverWithWhatWasSavedAndTheirTitlesOnFlush() async throws {
        let fixture = try await Self.fixture(savePolicy: .onFlush)
        let window = try await fixture.registry.newScene()
        try await fixture.registry.setTitle("Notes", for: window.id)
        try window.set("saved", forKey: "text")
        try await window.flush()
        try window.set("not saved", forKey: "text")

        let relaunched = try await fixture.crash()
        let restorable = try await relaunched.scenesToRestore()
        #expect(restorable.map(\.id) == [window.id])
        #expect(restorable.first?.state == .restorable(.recover))
        #expect(restorable.first?.title == "Notes", "metadata survives the crash")
        let store = try #require(try await relaunched.reopen(window.id))
        #expect(store.value(forKey: "text", default: "") == "saved")
        await fixture.tearDown()
    }

    @Test func aWindowAnotherLaunchHoldsIsNeitherListedNorReopened() async throws {
        let fixture = try await Self.fixture()
        let window = try await fixture.registry.newScene()
        let other = try await fixture.otherRegistry()
        #expect(try await other.scenesToRestore().isEmpty)
        #expect(try await other.reopen(window.id) == nil)
        #expect(try await other.sessions().map(\.state) == [.open(pid: getpid())])

        // An explicit id is shared, never claimed: both write the scene.
        let shared = try await other.store(for: window.id)
        try window.set(1, forKey: "mine")
        try await window.flush()
        try shared.set(2, forKey: "theirs")
        try await shared.flush()
        #expect(try await fixture.stored("mine", scene: window.id.rawValue) == .int(1))
        #expect(try await fixture.stored("theirs", scene: window.id.rawValue) == .int(2))
        await fixture.tearDown()
    }

    /// 150 held windows: `/proc/locks` then runs past its first page (4 KiB),
    /// which a read sized by the file's reported length (0) used to stop at.
    @Test func everyHeldWindowIsSeenHeldWhenThereAreMany() async throws {
        let fixture = try await Self.fixture()
        for _ in 0..<150 { _ = try await fixture.registry.newScene() }
        let other = try await fixture.otherRegistry()
        let sessions = try await other.sessions()
        #expect(sessions.count == 150)
        #expect(sessions.filter { $0.state == .open(pid: getpid()) }.count == 150)
        #expect(try await other.scenesToRestore().isEmpty)
        await fixture.tearDown()
    }

    @Test func aWindowClosedForGoodIsGoneEverywhere() async throws {
        let fixture = try await Self.fixture()
        let window = try await fixture.registry.newScene()
        try window.set("draft", forKey: "text")
        try await window.flush()
        var watching = fixture.configuration
        watching.watcher = .automatic
        let elsewhere = try await fixture.otherRegistry(configuration: watching).store(for: window.id)
        #expect(elsewhere.value(forKey: "text", default: "") == "draft")
        let updates = elsewhere.updates()

        try await fixture.registry.closeForGood(window.id)
        #expect(await updates.first { if case .discarded = $0 { true } else { false } } != nil)
        #expect(elsewhere.value(forKey: "text", as: String.self) == nil, "discarded in the other registry too")
        #expect(try await fixture.registry.sessions().isEmpty)
        let relaunched = try await fixture.relaunch()
        #expect(try await relaunched.scenesToRestore().isEmpty)
        #expect(try await relaunched.reopen(window.id) == nil)
        await fixture.tearDown()
    }

    @Test func restorableWindowsExpireOnTheInjectedCalendar() async throws {
        let calendar = Calendar()
        let fixture = try await Self.fixture(calendar, expiry: .seconds(7 * 86_400))
        let old = try await fixture.registry.newScene(title: "old")
        try old.set(1, forKey: "k")
        try await fixture.registry.close()   // old: last active now

        calendar.advance(by: 3 * 86_400)
        let second = try await fixture.otherRegistry()
        _ = try await second.newScene(title: "recent")
        try await second.close()   // recent: last active 3 days later

        calendar.advance(by: 5 * 86_400)   // 8 days after old, 5 after recent
        let third = try await fixture.otherRegistry()
        #expect(try await third.scenesToRestore().map(\.title) == ["recent"])
        #expect(try await third.store(for: old.id).value(forKey: "k", as: Int.self) == nil, "old was closed for good")
        await fixture.tearDown()
    }

    @Test func pruneClosesOnlyTheWindowsOlderThanTheAgeGiven() async throws {
        let calendar = Calendar()
        let fixture = try await Self.fixture(calendar)
        let first = try await fixture.registry.newScene()
        try await fixture.registry.close()
        calendar.advance(by: 3600)
        let second = try await fixture.otherRegistry()
        let kept = try await second.newScene()
        try await second.close()

        calendar.advance(by: 60)
        let third = try await fixture.otherRegistry()
        #expect(try await third.prune(olderThan: .seconds(1800)) == [first.id])
        #expect(try await third.scenesToRestore().map(\.id) == [kept.id])
        await fixture.tearDown()
    }
}
