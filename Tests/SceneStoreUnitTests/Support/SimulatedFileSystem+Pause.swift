import Dispatch
@testable import SceneStore

// One process paused in the middle of a save while another saves, the
// seed's way to show what the locks keep apart (SimulatedFileSystem.swift
// holds the calls, each of which passes the gate first).

extension SimulatedFileSystem {
    /// What a paused run tells the simulation.
    enum PauseEvent: Sendable, Equatable {
        /// The calling thread stopped at the gate (``pause(afterCalls:tell:)``).
        case paused
        /// Another thread met a lock while one was paused; it waits for
        /// ``releaseBlocked()``, then tries the lock once more.
        case blocked
    }

    struct Pause: Sendable {
        var callsLeft: Int?
        var isPaused = false
        var tell: (@Sendable (PauseEvent) -> Void)?
    }

    /// Stops the thread that makes the `number`th call from now, before
    /// the call, until ``resumePaused()``; `tell` hears it stop, and hears
    /// a lock met meanwhile.
    func pause(afterCalls number: Int, tell: @escaping @Sendable (PauseEvent) -> Void) {
        pausing.withLock { $0 = Pause(callsLeft: number, tell: tell) }
    }

    /// The paused thread goes on (if one is paused).
    func resumePaused() {
        let wasPaused = pausing.withLock { pause in
            defer { pause.isPaused = false }
            return pause.isPaused
        }
        if wasPaused { resumed.signal() }
    }

    func releaseBlocked() {
        unblocked.signal()
    }

    /// No more pauses; a thread paused meanwhile (another than the one
    /// meant, after that one ended) goes on.
    func stopPausing() {
        resumePaused()
        pausing.withLock { $0 = Pause() }
    }

    /// Where a call stops, when it is the one ``pause(afterCalls:tell:)`` named.
    func gate() {
        let stops = pausing.withLock { pause -> Bool in
            guard let left = pause.callsLeft else { return false }
            guard left <= 1 else {
                pause.callsLeft = left - 1
                return false
            }
            pause.callsLeft = nil
            pause.isPaused = true
            pause.tell?(.paused)
            return true
        }
        if stops { resumed.wait() }
    }

    /// Whether a lock that another holds waited for the paused thread (and
    /// is to be tried again).
    func waitedForPaused() -> Bool {
        let waits = pausing.withLock { pause -> Bool in
            guard pause.isPaused else { return false }
            pause.tell?(.blocked)
            return true
        }
        if waits { unblocked.wait() }
        return waits
    }
}
