import Testing
@testable import SceneStore

/// The save schedule with made-up instants: what coalescing does, checked
/// without a clock or a sleep.
struct SaveScheduleTests {
    /// A reading of the clock, `milliseconds` after it started.
    func at(_ milliseconds: Int) -> SaveSchedule.Instant { .milliseconds(milliseconds) }

    @Test func anEditOnAQuietStoreSavesAtOnce() {
        var schedule = SaveSchedule(policy: .coalesced(.milliseconds(30)))
        #expect(schedule.edited(at: at(0)) == .saveNow)
        #expect(schedule.edited(at: at(0)) == .none, "queued already")
    }

    /// A set and a flush at once, over and over, as an app that flushes
    /// does under the default policy: each set within the window after a
    /// save asks for a timer, and each flush saves before it fires. One
    /// timer at a time serves them all: a later edit rides on the one
    /// armed, which, firing before the edit is due, is armed again for
    /// when it is (never a save within the window), and a timer whose
    /// edits a flush saved meanwhile starts nothing.
    @Test func flushedEditsLeaveOneTimerArmedNotOneEach() {
        var schedule = SaveSchedule(policy: .coalesced(.milliseconds(30)))
        #expect(schedule.edited(at: at(0)) == .saveNow)
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(1), pendingLeft: false) == .none)
        #expect(schedule.edited(at: at(2)) == .save(at: at(31)))
        // Its flush saves it at once.
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(3), pendingLeft: false) == .none)
        #expect(schedule.edited(at: at(4)) == .none, "a second timer beside the one armed for 31 ms")
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(5), pendingLeft: false) == .none)
        #expect(schedule.edited(at: at(6)) == .none)
        // Not flushed: due 30 ms after the last save ended, at 35 ms.
        #expect(schedule.timerFired(at: at(31)) == .save(at: at(35)), "saved within the window")
        #expect(schedule.timerFired(at: at(35)) == .saveNow)
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(36), pendingLeft: false) == .none)
        #expect(schedule.edited(at: at(40)) == .save(at: at(66)))
        schedule.saveStarted()  // a flush
        #expect(schedule.saveEnded(at: at(41), pendingLeft: false) == .none)
        #expect(schedule.timerFired(at: at(66)) == .none, "a timer whose edit a flush saved started a save")
        #expect(schedule.edited(at: at(80)) == .saveNow)
        // A failed save's retry waits its back-off, even with a timer armed earlier.
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(81), pendingLeft: true) == .save(at: at(111)))
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(82), pendingLeft: true, failures: 1) == .none)
        #expect(schedule.timerFired(at: at(111)) == .save(at: at(1082)))
        #expect(schedule.timerFired(at: at(1082)) == .saveNow)
    }

    /// 1000 edits in a burst, each 10 µs apart, a save taking 1 ms: the
    /// first edit saves at once, the rest ride on one save per window.
    @Test func aBurstCostsTheFirstSavePlusOnePerWindow() {
        var schedule = SaveSchedule(policy: .coalesced(.milliseconds(30)))
        var saves = 0
        var nextSave: SaveSchedule.Instant?
        var pending = false
        var now = at(0)
        func runDueSave() {
            guard let due = nextSave, due <= now else { return }
            nextSave = nil
            schedule.saveStarted()
            saves += 1
            pending = false
            let end = due + .milliseconds(1)
            if end > now { now = end }
            if case .save(let instant) = schedule.saveEnded(at: end, pendingLeft: pending) { nextSave = instant }
        }
        for _ in 0..<1000 {
            pending = true
            switch schedule.edited(at: now) {
            case .saveNow: nextSave = now
            case .save(let instant): nextSave = instant
            case .none: break
            }
            runDueSave()
            now += .microseconds(10)
        }
        now += .milliseconds(100)
        runDueSave()
        // 1000 edits over 10 ms plus 1 ms per save: the leading save, then
        // at most one per 30 ms window.
        #expect(saves >= 1 && saves <= 3, "\(saves) saves")
        #expect(!pending)
    }

    @Test func editsDuringASaveGoIntoOneSaveAWindowAfterIt() {
        var schedule = SaveSchedule(policy: .coalesced(.milliseconds(30)))
        #expect(schedule.edited(at: at(0)) == .saveNow)
        schedule.saveStarted()
        #expect(schedule.edited(at: at(1)) == .none)
        #expect(schedule.edited(at: at(2)) == .none)
        #expect(schedule.saveEnded(at: at(3), pendingLeft: true) == .save(at: at(33)))
        #expect(schedule.edited(at: at(4)) == .none)
    }

    @Test func anEditWithinTheWindowAfterASaveWaitsForTheWindowsEnd() {
        var schedule = SaveSchedule(policy: .coalesced(.milliseconds(30)))
        _ = schedule.edited(at: at(0))
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(1), pendingLeft: false) == .none)
        #expect(schedule.edited(at: at(10)) == .save(at: at(31)))
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(32), pendingLeft: false) == .none)
        #expect(schedule.edited(at: at(100)) == .saveNow, "quiet again: leading edge")
    }

    @Test func failuresBackOffAndAPermanentOneIsNotRetried() {
        var schedule = SaveSchedule(policy: .coalesced(.milliseconds(30)))
        _ = schedule.edited(at: at(0))
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(1), pendingLeft: true, failures: 1) == .save(at: at(1001)))
        #expect(schedule.timerFired(at: at(1001)) == .saveNow)
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(1002), pendingLeft: true, failures: 2) == .save(at: at(3002)))
        #expect(schedule.timerFired(at: at(3002)) == .saveNow)
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(3003), pendingLeft: true, failures: 9) == .save(at: at(67003)), "at most 64 s")
        #expect(schedule.timerFired(at: at(67003)) == .saveNow)
        schedule.saveStarted()
        #expect(schedule.saveEnded(at: at(3004), pendingLeft: true, failures: 3, retryable: false) == .none)
    }

    @Test func writeThroughSavesAgainAtOnceAndOnFlushNever() {
        var through = SaveSchedule(policy: .writeThrough)
        #expect(through.edited(at: at(0)) == .saveNow)
        through.saveStarted()
        #expect(through.edited(at: at(1)) == .none)
        #expect(through.saveEnded(at: at(2), pendingLeft: true) == .saveNow)

        var manual = SaveSchedule(policy: .onFlush)
        #expect(manual.edited(at: at(0)) == .none)
        manual.saveStarted()
        #expect(manual.saveEnded(at: at(1), pendingLeft: true) == .none)
    }

    @Test func aFlushServesWhatWasQueued() {
        var schedule = SaveSchedule(policy: .coalesced(.milliseconds(30)))
        _ = schedule.edited(at: at(0))
        schedule.saveStarted()
        _ = schedule.saveEnded(at: at(1), pendingLeft: false)
        #expect(schedule.edited(at: at(5)) == .save(at: at(31)))
        schedule.saveStarted()  // a flush
        _ = schedule.saveEnded(at: at(6), pendingLeft: false)
        schedule.queuedSaveSkipped()  // the timer at 31 finds nothing
        #expect(schedule.edited(at: at(50)) == .saveNow)
    }
}
