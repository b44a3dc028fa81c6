/// A navigation path with a browser's back and forward, and the screens
/// viewed recently: what a tab of a browser keeps, for a ``ScenePath`` or
/// a typed stack.
///
/// * ``back(_:)`` pops screens and keeps them as forward entries;
///   ``forward()`` pushes the next one again.
/// * ``push(_:)`` (a new navigation) clears the forward entries.
/// * ``popToRoot()`` keeps the whole popped run as forward entries.
/// * ``recentlyViewed`` lists the screens that were on top, newest first,
///   each once.
///
/// Both lists are bounded by the `limit` given to ``init(_:limit:)`` (50 by
/// default): the farthest forward entries and the oldest recently viewed
/// screens fall off. A history is stored like a path
/// (``PathCodec/history(_:limit:)``), under one key, and restored with its
/// forward entries after a quit or a crash.
///
/// ```swift
/// var history = NavigationHistory<[Book]>()
/// history.push(dune)
/// history.push(hyperion)
/// history.back()              // path [dune], forward [hyperion]
/// history.forward()           // path [dune, hyperion]
/// ```
public struct NavigationHistory<Path: NavigationSteps> {
    /// The screens shown, root first.
    public private(set) var path: Path
    /// The forward entries as a stack: its last step is the one
    /// ``forward()`` brings back next.
    var forwardStack: Path
    /// The recently viewed screens as a stack: its last step is the newest.
    var recentStack: Path
    /// How many forward entries, and how many recently viewed screens, are
    /// kept at most.
    let limit: Int

    /// A history at `path`, with no forward entry and nothing viewed yet.
    /// - Parameters:
    ///   - path: the screens shown, root first.
    ///   - limit: how many forward entries and recently viewed screens are
    ///     kept (at least 1; 50 by default).
    public init(_ path: Path = Path(), limit: Int = 50) {
        self.path = path
        forwardStack = Path()
        recentStack = Path()
        self.limit = max(limit, 1)
    }

    init(path: Path, forwardStack: Path, recentStack: Path, limit: Int) {
        self.path = path
        self.forwardStack = forwardStack
        self.recentStack = recentStack
        self.limit = max(limit, 1)
    }

    /// The forward entries, the next one first: the screens ``forward()``
    /// can bring back.
    public var forwardSteps: [Path.Step] { forwardStack.steps.reversed() }

    /// The screens that were on top, the newest first, each once.
    public var recentlyViewed: [Path.Step] { recentStack.steps.reversed() }

    /// Pushes `step`: a new navigation, so the forward entries are cleared.
    public mutating func push(_ step: Path.Step) {
        path.append(step)
        forwardStack = Path()
        viewed(step)
    }

    /// Shows `newPath` instead of the current path (a deep link): a new
    /// navigation, so the forward entries are cleared.
    public mutating func replacePath(with newPath: Path) {
        path = newPath
        forwardStack = Path()
        if let top = path.top { viewed(top) }
    }

    /// Pops up to `k` screens, each kept as a forward entry.
    /// - Returns: how many were popped (`min(k, path.count)`).
    @discardableResult
    public mutating func back(_ k: Int = 1) -> Int {
        var popped = 0
        while popped < k, let step = path.popLast() {
            forwardStack.append(step)
            popped += 1
        }
        guard popped > 0 else { return 0 }
        // The top `limit` forward entries stay; the bottom ones fall off.
        let forward = forwardStack.steps
        if forward.count > limit { forwardStack = Path(steps: forward.suffix(limit)) }
        if let top = path.top { viewed(top) }
        return popped
    }

    /// Pops every screen; the whole run is kept as forward entries.
    public mutating func popToRoot() {
        back(.max)
    }

    /// Pushes the next forward entry again.
    /// - Returns: `false` when there is none.
    @discardableResult
    public mutating func forward() -> Bool {
        guard let step = forwardStack.popLast() else { return false }
        path.append(step)
        viewed(step)
        return true
    }

    /// Records `step` as the newest screen viewed (once: an older entry of
    /// it goes).
    private mutating func viewed(_ step: Path.Step) {
        var kept = recentStack.steps
        kept.removeAll { Path.sameStep($0, step) }
        kept.append(step)
        recentStack = Path(steps: kept.suffix(limit))
    }
}

extension NavigationHistory: Sendable where Path: Sendable {}

extension NavigationHistory: Equatable {
    /// Equal when the path, the forward entries and the recently viewed
    /// screens are; the limit is a setting, not state.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.path == rhs.path && lhs.forwardStack == rhs.forwardStack && lhs.recentStack == rhs.recentStack
    }
}
