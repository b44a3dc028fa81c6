import SceneStore

/// The three tabs of the demo, each with its own navigation stack. The
/// selected tab is part of the scene state (stored under ``DemoKeys/tab``).
enum Tab: String, CaseIterable, Sendable, SceneStorable {
    case mixed, books, library

    /// The name shown in the tab bar and at the root of the breadcrumb.
    var title: String {
        switch self {
        case .mixed: "Mixed"
        case .books: "Books"
        case .library: "Library"
        }
    }

    /// The tab after this one, wrapping around (the Tab key).
    var next: Tab {
        let all = Tab.allCases
        let index = all.firstIndex(of: self) ?? 0
        return all[(index + 1) % all.count]
    }

    /// Parses `mixed`, `books`, `library` or their numbers `1`, `2`, `3`.
    init?(argument: String) {
        if let tab = Tab(rawValue: argument.lowercased()) {
            self = tab
        } else if let number = Int(argument), Tab.allCases.indices.contains(number - 1) {
            self = Tab.allCases[number - 1]
        } else {
            return nil
        }
    }
}
