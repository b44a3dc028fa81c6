import SceneNavigation

/// The whole scene state of the demo: the selected tab, the three stacks,
/// each with its back and forward history, and the selected link of each
/// screen. A value: the sessions mutate it, ``DemoPersistence`` saves what
/// changed.
struct DemoState: Equatable, Sendable {
    var tab: Tab = .mixed
    var mixed = NavigationHistory<ScenePath>()
    var books = NavigationHistory<[Book]>()
    var library = NavigationHistory<[Selection]>()
    var cursors = LinkCursors()

    /// How many screens `forward` brings back on the selected tab.
    var forwardCount: Int {
        switch tab {
        case .mixed: mixed.forwardSteps.count
        case .books: books.forwardSteps.count
        case .library: library.forwardSteps.count
        }
    }

    /// How deep the selected tab's stack is (0 at its root).
    var depth: Int {
        depth(of: tab)
    }

    func depth(of tab: Tab) -> Int {
        switch tab {
        case .mixed: mixed.path.count
        case .books: books.path.count
        case .library: library.path.count
        }
    }

    /// The selected tab's current screen.
    func screen(in catalog: LibraryCatalog) -> Screen {
        switch tab {
        case .mixed: MixedTab.screen(for: mixed.path)
        case .books: BooksTab.screen(for: books.path)
        case .library: LibraryTab.screen(for: library.path, recentlyViewed: library.recentlyViewed, in: catalog)
        }
    }

    /// The selected tab's stack as titles, root first.
    func breadcrumb(in catalog: LibraryCatalog) -> [String] {
        let titles: [String] = switch tab {
        case .mixed: mixed.path.map(MixedTab.title(of:))
        case .books: books.path.map(\.title)
        case .library: library.path.map { catalog.title(of: $0) ?? $0.reference }
        }
        return [tab.title] + titles
    }

    /// This state with the link highlights of `window`: another window's
    /// moves (stored with the scene for the next launch) do not move the
    /// highlight of the window that follows them.
    func keeping(highlightsOf window: DemoState) -> DemoState {
        var state = self
        state.cursors = window.cursors
        state.trimCursors()
        return state
    }

    /// The selected link on the current screen.
    func selectedLink(in catalog: LibraryCatalog) -> Int {
        cursors.selected(in: tab, depth: depth, linkCount: screen(in: catalog).links.count)
    }

    /// Moves the selection on the current screen by `offset`, clamped.
    mutating func moveSelection(by offset: Int, in catalog: LibraryCatalog) {
        let count = screen(in: catalog).links.count
        guard count > 0 else { return }
        let index = max(0, min(selectedLink(in: catalog) + offset, count - 1))
        cursors.select(index, in: tab, depth: depth)
    }

    /// Follows link `index` of the current screen (remembering it as the
    /// screen's selection). Returns `false` if there is no such link.
    mutating func open(link index: Int, in catalog: LibraryCatalog) -> Bool {
        let links = screen(in: catalog).links
        guard links.indices.contains(index) else { return false }
        cursors.select(index, in: tab, depth: depth)
        perform(links[index].action)
        return true
    }

    /// Applies one navigation action.
    mutating func perform(_ action: DemoAction) {
        switch action {
        case .selectTab(let selected):
            tab = selected
        case .pushMixed(.number(let number)):
            mixed.push(number)
        case .pushMixed(.text(let text)):
            mixed.push(text)
        case .pushRandomNumber:
            mixed.push(Int.random(in: 1...100))
        case .pushFavorite:
            mixed.push(MixedTab.favorite)
        case .pushBook(let book):
            books.push(book)
        case .backToFirstBook:
            books.back(max(0, books.path.count - 1))
        case .pushSelection(let selection):
            library.push(selection)
        case .showSettings:
            tab = .library
            library.replacePath(with: [.settings])
        case .back:
            back(1)
        case .popToRoot:
            back(depth)
        case .forward:
            switch tab {
            case .mixed: mixed.forward()
            case .books: books.forward()
            case .library: library.forward()
            }
        }
        trimCursors()
    }

    /// Goes back `count` screens on the selected tab; each stays as a
    /// forward entry.
    private mutating func back(_ count: Int) {
        switch tab {
        case .mixed: mixed.back(count)
        case .books: books.back(count)
        case .library: library.back(count)
        }
    }

    /// Drops the selections of screens that are no longer on a stack, so a
    /// screen pushed again starts at its first link.
    mutating func trimCursors() {
        for tab in Tab.allCases {
            cursors.trim(tab, toDepth: depth(of: tab))
        }
    }
}
