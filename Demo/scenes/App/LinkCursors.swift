/// The selected link on each screen of each tab: one index per depth of the
/// tab's stack (index 0 is the root screen). Going back returns to the link
/// that was followed; stored as JSON `Data` under ``DemoKeys/cursors``.
struct LinkCursors: Codable, Equatable, Sendable {
    var mixed: [Int] = []
    var books: [Int] = []
    var library: [Int] = []

    subscript(tab: Tab) -> [Int] {
        get {
            switch tab {
            case .mixed: mixed
            case .books: books
            case .library: library
            }
        }
        set {
            switch tab {
            case .mixed: mixed = newValue
            case .books: books = newValue
            case .library: library = newValue
            }
        }
    }

    /// The selected link at `depth` of `tab`, clamped to `linkCount`.
    func selected(in tab: Tab, depth: Int, linkCount: Int) -> Int {
        let stored = self[tab].indices.contains(depth) ? self[tab][depth] : 0
        return max(0, min(stored, linkCount - 1))
    }

    /// Selects `index` on the screen at `depth` of `tab`.
    mutating func select(_ index: Int, in tab: Tab, depth: Int) {
        var cursors = self[tab]
        if cursors.count <= depth { cursors += Array(repeating: 0, count: depth + 1 - cursors.count) }
        cursors[depth] = index
        self[tab] = cursors
    }

    /// Forgets the screens above `depth` (they were popped).
    mutating func trim(_ tab: Tab, toDepth depth: Int) {
        if self[tab].count > depth + 1 { self[tab].removeLast(self[tab].count - depth - 1) }
    }
}
