import Foundation
@testable import SceneStore
import SceneStoreTesting
import Testing
import TestSupport

/// The lock of the windows' scene (its byte of the root's lock file) held by someone
/// else: window calls wait for it without occupying a thread of Swift's
/// cooperative pool, and a quit that cannot take it in time is still a
/// quit. The lock is held from another open file description of this
/// process, which the kernel excludes as it would another process.
// Hang guard: each test takes well under a second here; 2 minutes.
@Suite(.timeLimit(.minutes(2))) struct WindowLockTests {
    static func configuration(lockTimeout: Duration) -> SceneRegistry.Configuration {
        SceneRegistry.Configuration(savePolicy: .onFlush, watcher: .none, lockTimeout: lockTimeout)
    }

    /// More `newScene`, `markActive` and `close()` calls than the pool has
    /// threads, all waiting for the windows' lock: an unrelated task still
    /// runs meanwhile (it ends while none of them has ended), and once the
    /// lock is let go every call succeeds.
    @Test func windowCallsWaitingForTheWindowsLockLeaveTheCooperativePoolFree() async throws {
        // The library's default timeout: before the fix, the pool froze for it.
        let fixture = try await SceneStoreFixture(configuration: Self.configuration(lockTimeout: .seconds(10)))
        let window = try await fixture.registry.newScene()
        let quitting = try await fixture.otherRegistry()
        let quitWindow = try await quitting.newScene()
        let held = try HeldLock(.scene(.windows), root: fixture.root)

        let clock = ContinuousClock()
        let before = clock.now
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let (started, starting) = AsyncStream<Void>.makeStream()
        let ended = Locked(0)  // calls that returned or threw
        var calls: [Task<Void, any Error>] = []
        for _ in 0...threads {
            calls.append(Task {
                starting.yield()
                defer { ended.withLock { $0 += 1 } }
                _ = try await fixture.registry.newScene()
            })
            calls.append(Task {
                starting.yield()
                defer { ended.withLock { $0 += 1 } }
                try await fixture.registry.markActive(window.id)
            })
        }
        calls.append(Task {
            starting.yield()
            defer { ended.withLock { $0 += 1 } }
            try await quitting.close()
        })
        // As many calls under way as the pool has threads.
        var seen = 0
        for await _ in started {
            seen += 1
            if seen == threads { break }
        }
        let unrelated = await Task.detached { 42 }.value
        let waited = clock.now - before
        #expect(unrelated == 42)
        #expect(ended.withLock { $0 } == 0, "the unrelated task ran only after window calls had ended (it waited \(waited))")

        held.release()
        for call in calls { try await call.value }
        #expect(ended.withLock { $0 } == calls.count)
        let relaunched = try await fixture.otherRegistry()
        let restorable = try await relaunched.scenesToRestore()
        #expect(restorable.first { $0.id == quitWindow.id }?.state == .restorable(.relaunch))
        await fixture.tearDown()
    }

    /// A quit whose registry cannot take the windows' lock (held, and a
    /// zero timeout) still records the quit: the window comes back for a
    /// relaunch, not to recover; reopened and then crashed, it is to
    /// recover again. 10 rounds; the other launches wait for the lock.
    @Test func aQuitThatCannotTakeTheWindowsLockComesBackAsARelaunch() async throws {
        let fixture = try await SceneStoreFixture(configuration: Self.configuration(lockTimeout: .seconds(120)))
        let impatient = Self.configuration(lockTimeout: .zero)
        var quitting = try await fixture.otherRegistry(configuration: impatient)
        let window = try await quitting.newScene().id
        for round in 0..<10 {
            let held = try HeldLock(.scene(.windows), root: fixture.root)
            do {
                try await quitting.close()
            } catch {
                // A quit may say it could not record the order; it must not lose the quit.
            }
            held.release()
            let restorable = try await fixture.otherRegistry().scenesToRestore()
            #expect(restorable.map(\.id) == [window], "round \(round)")
            #expect(restorable.first?.state == .restorable(.relaunch), "round \(round): \(restorable)")

            // Reopened, then killed: to recover, whatever the last quit left on the claim.
            let crashing = try await fixture.otherRegistry()
            #expect(try await crashing.reopen(window) != nil, "round \(round)")
            crashing.abandon()
            let recovering = try await fixture.otherRegistry().scenesToRestore()
            #expect(recovering.first?.state == .restorable(.recover), "round \(round): \(recovering)")

            quitting = try await fixture.otherRegistry(configuration: impatient)
            try #require(try await quitting.reopen(window) != nil, "round \(round)")
        }
        await fixture.tearDown()
    }

    /// Temp files of the windows' scene that killed writers left (named as
    /// a compaction names them) are gone after the next launch that lists
    /// the windows; the records are intact. 10 leftovers, 3 launches.
    @Test func windowsTempFilesKilledWritersLeftAreRemovedByTheNextLaunch() async throws {
        let fixture = try await SceneStoreFixture(configuration: Self.configuration(lockTimeout: .seconds(10)))
        let kept = try await fixture.registry.newScene(title: "kept").id
        try await fixture.registry.close()
        let directory = SceneDirectory(root: fixture.root)
        for _ in 0..<10 {
            let leftover = directory.tempPath(.windows, token: randomToken())
            #expect(FileManager.default.createFile(atPath: leftover, contents: Data(repeating: 0x41, count: 4096)))
        }
        for launch in 0..<3 {
            let registry = try await fixture.relaunch()
            let restorable = try await registry.scenesToRestore()
            #expect(restorable.map(\.id) == [kept], "launch \(launch)")
            #expect(try await registry.reopen(kept) != nil, "launch \(launch)")
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)
            let temps = names.filter { SceneDirectory.leftoverOwner($0) == .windows }
            #expect(temps.isEmpty, "launch \(launch): \(temps.count) temp files of the windows' scene are still there")
        }
        await fixture.tearDown()
    }
}
