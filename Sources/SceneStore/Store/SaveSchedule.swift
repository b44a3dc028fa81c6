/// When a store saves, decided without I/O or clocks: the store reports what
/// happened and when, and performs the action returned. Tests drive it with
/// made-up instants, so coalescing is checked without sleeping.
///
/// `.coalesced(window)` is a throttle, not a delay: an edit on a quiet store
/// saves at once (the leading edge); edits made while a save runs, or within
/// `window` after one ended, are gathered into the next save, which starts
/// `window` after the last one ended. A burst of any length costs the first
/// save plus one save per window. `.writeThrough` is the same with no
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

    init(policy: SceneRegistry.SavePolicy) {
        self.policy = policy
    }

    private var window: Duration? {
        switch policy {
        case .writeThrough: .zero
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
        if let lastEnd, now < lastEnd + window { return .save(at: lastEnd + window) }
        return .saveNow
    }

    /// A save (background or flush) begins: whatever was queued is served.
    mutating func saveStarted() {
        saving = true
        queued = false
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
            return .save(at: now + .seconds(1 << min(failures - 1, 6)))
        }
        queued = true
        return window == .zero ? .saveNow : .save(at: now + window)
    }

    /// A queued save found nothing to do (a flush got there first).
    mutating func queuedSaveSkipped() {
        queued = false
    }
}
