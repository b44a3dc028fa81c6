/// When a store saves, decided without I/O or clocks: the store reports what
/// happened and when, and performs the action returned. Tests drive it with
/// made-up instants, so coalescing is checked without sleeping.
///
/// `.coalesced(window)` is a throttle, not a delay: an edit on a quiet store
/// saves at once (the leading edge); edits made while a save runs, or within
/// `window` after one ended, are gathered into the next save, which starts
/// `window` after the last one ended. A burst of any length costs the first
/// save plus one save per window. `.coalesced(.zero)` is the same with no
/// window; `.onFlush` never saves by itself.
struct SaveSchedule: Sendable {
    /// A reading of the registry's clock (``SceneClock/now``).
    typealias Instant = Duration

    enum Action: Equatable, Sendable {
        case none
        case saveNow
        case save(at: Instant)
    }

    let policy: SceneRegistry.SavePolicy
    /// A save is running (from ``saveStarted()`` to ``saveEnded(at:pendingLeft:failures:retryable:)``).
    private(set) var saving = false
    /// A save is queued or a timer set: further edits ride on it.
    private(set) var queued = false
    private var lastEnd: Instant?
    /// When the queued save is due, if it waits for an instant.
    private var due: Instant?
    /// When the one timer armed fires (``Action/save(at:)``), if one is.
    /// A store that flushes saves before its timers fire: one timer at a
    /// time, armed again when it fires early, rather than one per edit
    /// (each a task and a wake-up of the store's queue).
    private var timer: Instant?

    init(policy: SceneRegistry.SavePolicy) {
        self.policy = policy
    }

    private var window: Duration? {
        switch policy {
        case .coalesced(let window): window
        case .onFlush: nil
        }
    }

    /// A value was set or removed at `now` (read only when a save is to be
    /// queued: most sets ride on one already queued, and pay nothing).
    mutating func edited(at now: @autoclosure () -> Instant) -> Action {
        guard let window, !queued, !saving else { return .none }
        queued = true
        let now = now()
        if let lastEnd, now < lastEnd + window { return wait(until: lastEnd + window) }
        return .saveNow
    }

    /// The queued save waits until `instant`: a timer for it, unless the
    /// one armed fires first (it then looks again, ``timerFired(at:)``).
    private mutating func wait(until instant: Instant) -> Action {
        due = instant
        if let timer, timer <= instant { return .none }
        timer = instant
        return .save(at: instant)
    }

    /// The armed timer fired at `now`: the queued save runs if it is due,
    /// waits again if it is not yet (the timer was armed for an earlier
    /// one, which a flush saved), and nothing happens if none is queued.
    mutating func timerFired(at now: Instant) -> Action {
        timer = nil
        guard queued, !saving, let due else { return .none }
        return now < due ? wait(until: due) : .saveNow
    }

    /// A save (background or flush) begins: whatever was queued is served.
    mutating func saveStarted() {
        saving = true
        queued = false
        due = nil
    }

    /// The save begun last ended at `now`. With edits left (made during it,
    /// or it failed) the next save is queued: after the window, or after
    /// the back-off for `failures` failures in a row (1 s, 2 s ... 64 s);
    /// never for a failure that retrying cannot fix.
    mutating func saveEnded(at now: Instant, pendingLeft: Bool, failures: Int = 0, retryable: Bool = true) -> Action {
        saving = false
        lastEnd = now
        guard pendingLeft, let window, !queued else { return .none }
        if failures > 0 {
            guard retryable else { return .none }
            queued = true
            return wait(until: now + .seconds(1 << min(failures - 1, 6)))
        }
        queued = true
        return window == .zero ? .saveNow : wait(until: now + window)
    }

    /// A queued save found nothing to do (a flush got there first).
    mutating func queuedSaveSkipped() {
        queued = false
        due = nil
    }
}
