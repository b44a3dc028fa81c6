@testable import SceneStore
import Testing

/// The store's state alone: no disk, no threads.
struct StoreStateTests {
    private func discard(_ state: inout StoreState, editsUpTo: UInt64) -> SaveSchedule.Action {
        state.discardedHere(editsUpTo: editsUpTo, at: .zero)
    }

    /// Reload requests coalesce while one is queued; once it has started
    /// the next request queues another; a closed store queues none.
    @Test func reloadRequestsCoalesceUntilTheReloadStarts() {
        var state = StoreState(savePolicy: .onFlush)
        let first = state.reloadRequested(), second = state.reloadRequested()
        let started = state.reloadStarts(), afterStart = state.reloadRequested()
        state.close()
        let startedClosed = state.reloadStarts(), requestedClosed = state.reloadRequested()
        #expect(first)
        #expect(!second, "a second reload queued beside the first")
        #expect(started)
        #expect(afterStart, "a request after the reload started was dropped")
        #expect(!startedClosed)
        #expect(!requestedClosed, "a closed store queued a reload")
    }

    /// A change heard of is read right there for a small open scene on a
    /// storage whose reads are local; otherwise a reading is queued, once.
    @Test func aChangeHeardOfIsReadThereOnlyWhenSmallAndLocal() throws {
        var state = StoreState(savePolicy: .onFlush)
        let here = state.changeHeard(readsLocally: true)
        let remote = state.changeHeard(readsLocally: false), remoteAgain = state.changeHeard(readsLocally: false)
        #expect(here == .readHere)
        #expect(remote == .readQueued)
        #expect(remoteAgain == .nothing, "a second reading queued beside the first")

        _ = state.reloadStarts()
        let large = String(repeating: "x", count: StoreState.inlineReloadBytes)
        _ = try state.applyLocal(key: "big", value: .string(large), sceneLimit: 1 << 20, scene: SceneID("main"))
        let big = state.changeHeard(readsLocally: true)
        #expect(big == .readQueued, "a large scene was read on the watcher's thread")
        state.close()
        _ = state.reloadStarts()
        let closed = state.changeHeard(readsLocally: true)
        #expect(closed == .nothing)
    }

    /// What a local discard kept is scheduled for saving, as the policy says.
    @Test func aLocalDiscardSchedulesTheSaveOfWhatItKept() throws {
        let main = SceneID("main")
        var state = StoreState(savePolicy: .writeThrough)
        let calledAt = state.lastEdit
        _ = try state.applyLocal(key: "during", value: .int(2), sceneLimit: 1 << 20, scene: main)
        #expect(discard(&state, editsUpTo: calledAt) == .saveNow)
        var empty = StoreState(savePolicy: .writeThrough)
        #expect(discard(&empty, editsUpTo: empty.lastEdit) == .none, "nothing kept, nothing to save")
    }

    /// A local discard drops the edits made before it was called, not one
    /// made while it waited for the lock: that one is kept, shown and saved.
    @Test func aLocalDiscardKeepsTheEditsMadeAfterItWasCalled() throws {
        let main = SceneID("main")
        var state = StoreState(savePolicy: .onFlush)
        _ = try state.applyLocal(key: "before", value: .int(1), sceneLimit: 1 << 20, scene: main)
        let calledAt = state.lastEdit
        _ = try state.applyLocal(key: "during", value: .int(2), sceneLimit: 1 << 20, scene: main)
        #expect(discard(&state, editsUpTo: calledAt) == .none, "on-flush: nothing scheduled")
        #expect(state.values == ["during": .int(2)])
        #expect(Set(state.pending.keys) == ["during"])
    }

    /// Another process's discard keeps every pending edit: it cannot tell
    /// which came first.
    @Test func anExternalDiscardKeepsEveryPendingEdit() throws {
        let main = SceneID("main")
        var state = StoreState(savePolicy: .onFlush)
        _ = try state.applyLocal(key: "a", value: .int(1), sceneLimit: 1 << 20, scene: main)
        _ = try state.applyLocal(key: "b", value: .int(2), sceneLimit: 1 << 20, scene: main)
        state.discardedElsewhere()
        #expect(state.values == ["a": .int(1), "b": .int(2)])
        #expect(Set(state.pending.keys) == ["a", "b"])
    }
}

/// What a reading of the scene's document means: decided in one place,
/// for every site (opening, a reload without the lock, under the lock).
struct StoreStateReadingTests {
    private static func file(generation: UInt64, incarnation: String = "a", _ values: [String: SceneValue]) -> SceneFile {
        SceneFile(scene: "main", generation: generation, incarnation: incarnation,
                  writer: WriterIdentity(pid: 1, token: "other"), values: values)
    }

    private static func opened(_ file: SceneFile) -> StoreState {
        var state = StoreState(savePolicy: .onFlush)
        _ = state.read(.file(file), at: .opening, writable: true)
        return state
    }

    @Test func aNewerFileIsAdoptedAnOlderOneIsNot() {
        var state = Self.opened(Self.file(generation: 3, ["k": .int(1)]))
        #expect(state.values == ["k": .int(1)])
        guard case .settled(let base) = state.read(.file(Self.file(generation: 2, ["k": .int(0)])), at: .withoutLock, writable: true) else {
            Issue.record("an older file was not settled")
            return
        }
        #expect(base?.generation == 2)
        #expect(state.values == ["k": .int(1)], "an older version was applied")
        _ = state.read(.file(Self.file(generation: 4, ["k": .int(2)])), at: .withoutLock, writable: true)
        #expect(state.values == ["k": .int(2)])
        #expect(state.disk.generation == 4)
    }

    /// A reading goes on from where the last one ended, over the
    /// document memory holds; a store opening, or holding none, reads
    /// whole.
    @Test func aReadingGoesOnFromWhereTheLastEnded() throws {
        let file = Self.file(generation: 3, ["k": .int(1)])
        let end = LogPosition(written: file.encoded(), version: file.version)
        var fresh = StoreState(savePolicy: .onFlush)
        _ = fresh.read(.missing, logEnd: end, at: .withoutLock, writable: true)
        #expect(fresh.cursor(.withoutLock) == nil, "no document held")
        var state = Self.opened(file)
        #expect(state.cursor(.withoutLock) == nil, "nothing read yet")
        _ = state.read(.file(file), logEnd: end, at: .withoutLock, writable: true)
        #expect(state.cursor(.withoutLock) == end)
        #expect(state.cursor(.holdingLock) == end)
        #expect(state.cursor(.opening) == nil)
    }

    /// A missing file means nothing to a store that never had one; after
    /// one, it is looked at under the lock, where a recorded discard of
    /// the incarnation held tells a discard from a file that vanished.
    @Test func aMissingFileIsADiscardOnlyWithATombstone() throws {
        var fresh = StoreState(savePolicy: .onFlush)
        guard case .settled(nil) = fresh.read(.missing, at: .withoutLock, writable: true) else {
            Issue.record("a store without a file reconciled a missing one")
            return
        }
        var state = Self.opened(Self.file(generation: 3, ["k": .int(1)]))
        guard case .lookHoldingLock = state.read(.missing, at: .withoutLock, writable: true),
              case .checkDiscard(replacement: nil, _) = state.read(.missing, at: .holdingLock, writable: true) else {
            Issue.record("a missing file was not looked at under the lock")
            return
        }
        var vanished = state
        #expect(vanished.ended(discarded: false, replacement: nil) == .vanished)
        #expect(Set(vanished.pending.keys) == ["k"], "values of a vanished file are written again")
        #expect(vanished.disk == .none)

        _ = try state.applyLocal(key: "later", value: .int(2), sceneLimit: 1 << 20, scene: SceneID("main"))
        #expect(state.ended(discarded: true, replacement: nil) == .discarded)
        #expect(state.values == ["later": .int(2)], "a discard by another process drops what was saved, keeps what was not")
        #expect(state.disk == .none)

        var readOnly = Self.opened(Self.file(generation: 3, ["k": .int(1)]))
        guard case .settled = readOnly.read(.missing, at: .withoutLock, writable: false) else {
            Issue.record("a read-only store took the lock")
            return
        }
        #expect(readOnly.values == ["k": .int(1)])
    }

    /// Another incarnation in place of the one held is looked at under
    /// the lock. Without a discard of the one held, every value the new
    /// file lacks is written back, yielding to what another process
    /// stored under its key meanwhile; after a discard, only what was not
    /// saved yet is kept.
    @Test func anotherIncarnationIsWrittenBackOverUnlessTheOneHeldWasDiscarded() throws {
        let replacement = Self.file(generation: 1, incarnation: "b", ["k": .int(9), "new": .int(2)])
        var state = Self.opened(Self.file(generation: 3, ["k": .int(1), "kept": .int(1)]))
        guard case .lookHoldingLock = state.read(.file(replacement), at: .withoutLock, writable: true),
              case .checkDiscard(replacement: replacement?, _) = state.read(.file(replacement), at: .holdingLock, writable: true) else {
            Issue.record("another incarnation was not looked at under the lock")
            return
        }
        // Seen without the lock, the new file is not where the next reading goes on from.
        let before = state.cursor(.withoutLock)
        let end = LogPosition(written: replacement.encoded(), version: replacement.version)
        _ = state.read(.file(replacement), logEnd: end, at: .withoutLock, writable: true)
        #expect(state.cursor(.withoutLock) == before)

        var quarantined = state
        #expect(quarantined.ended(discarded: false, replacement: replacement) == .vanished)
        #expect(Set(quarantined.pending.keys) == ["kept"], "only what the new file lacks is written back")
        #expect(quarantined.values == ["k": .int(9), "kept": .int(1), "new": .int(2)])

        // A write-back marked while no file was there yields to a key stored since.
        var vanished = state
        _ = vanished.ended(discarded: false, replacement: nil)
        #expect(vanished.dropEditsRefused(by: replacement, writer: WriterIdentity(pid: 9, token: "me")) == ["k"])
        #expect(vanished.values["k"] == .int(9))
        // An explicit set of the value shown does not yield.
        _ = try vanished.applyLocal(key: "kept", value: .int(1), sceneLimit: 1 << 20, scene: SceneID("main"))
        #expect(vanished.dropEditsRefused(by: Self.file(generation: 1, incarnation: "b", ["kept": .int(5)]), writer: WriterIdentity(pid: 9, token: "me")) == [])

        #expect(state.ended(discarded: true, replacement: replacement) == .discarded)
        #expect(state.values == ["k": .int(9), "new": .int(2)])
        #expect(state.pending.isEmpty)

        var readOnly = Self.opened(Self.file(generation: 3, ["k": .int(1)]))
        guard case .settled = readOnly.read(.file(replacement), at: .withoutLock, writable: false) else {
            Issue.record("a read-only store took the lock")
            return
        }
        #expect(readOnly.values == ["k": .int(9), "new": .int(2)])
    }

    @Test func aDamagedFileIsQuarantinedUnderTheLockOnly() throws {
        var state = Self.opened(Self.file(generation: 3, ["k": .int(1)]))
        guard case .lookHoldingLock = state.read(.damaged(.badChecksum), at: .withoutLock, writable: true),
              case .quarantine(.badChecksum) = state.read(.damaged(.badChecksum), at: .holdingLock, writable: true),
              case .leaveDamaged = state.read(.damaged(.badChecksum), at: .holdingLock, writable: false) else {
            Issue.record("a damaged file was not handled as documented")
            return
        }
        let recovery = QuarantinedScene(reason: "bad checksum", quarantinedFile: "/q/main")
        state.quarantined(recovery)
        #expect(state.lastQuarantined == recovery)
        #expect(Set(state.pending.keys) == ["k"], "values are written again over the quarantined file")
        #expect(state.values == ["k": .int(1)])
    }

    @Test(arguments: [ReadSite.opening, .withoutLock, .holdingLock])
    func aNewerFormatIsRefusedEverywhere(site: ReadSite) {
        var state = Self.opened(Self.file(generation: 3, ["k": .int(1)]))
        guard case .refuse(version: 9) = state.read(.newerVersion(9), at: site, writable: true) else {
            Issue.record("a newer format was not refused")
            return
        }
        #expect(state.values == ["k": .int(1)])
    }

    /// A batch of updates whose transaction failed: every caller gets that
    /// error, and what the batch applied is scheduled for saving (never
    /// left pending with nothing scheduled). One that committed: each
    /// caller gets its own transform's outcome, and nothing more is saved.
    @Test func anUpdateBatchResumesEachCallerAndSavesWhatAFailureLeft() throws {
        struct Refused: Error {}
        let main = SceneID("main")
        var state = StoreState(savePolicy: .writeThrough)
        let outcomes: [(any Error)?] = [nil, Refused()]
        _ = try state.applyLocal(key: "count", value: .int(1), sceneLimit: 1 << 20, scene: main)

        let failed = state.updatesEnded(["a", "b"], outcomes: outcomes, failure: SceneStoreError.closed(scene: "main"), at: .zero)
        #expect(failed.save == .saveNow)
        #expect(failed.resumptions.map(\.0) == ["a", "b"])
        #expect(failed.resumptions.allSatisfy { $0.1 is SceneStoreError })

        let committed = state.updatesEnded(["a", "b"], outcomes: outcomes, failure: nil, at: .zero)
        #expect(committed.save == .none)
        #expect(committed.resumptions[0].1 == nil)
        #expect(committed.resumptions[1].1 is Refused)
    }
}
