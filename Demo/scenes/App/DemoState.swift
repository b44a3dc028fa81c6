import SceneNavigation

/// The whole scene state of the demo: the selected tab, the three stacks,
/// and the selected link of each screen. A value: the sessions mutate it,
/// ``DemoPersistence`` saves what changed.
struct DemoState: Equatable, Sendable {
    var tab: Tab = .mixed
    var mixed = ScenePath()
    var books: [Book] = []
    var library: [Selection] = []
    var cursors = LinkCursors()

    /// How deep the selected tab's stack is (0 at its root).
    var depth: Int {
        depth(of: tab)
    }

    func depth(of tab: Tab) -> Int {
        switch tab {
        case .mixed: mixed.count
        case .books: books.count
        case .library: library.count
        }
    }

    /// The selected tab's current screen.
    func screen(in catalog: LibraryCatalog) -> Screen {
        switch tab {
        case .mixed: MixedTab.screen(for: mixed)
        case .books: BooksTab.screen(for: books)
        case .library: LibraryTab.screen(for: library, in: catalog)
        }
    }

    /// The selected tab's stack as titles, root first.
    func breadcrumb(in catalog: LibraryCatalog) -> [String] {
        let titles: [String] = switch tab {
        case .mixed: mixed.map(MixedTab.title(of:))
        case .books: books.map(\.title)
        case .library: library.map { catalog.title(of: $0) ?? $0.reference }
        }
        return [tab.title] + titles
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
            mixed.append(number)
        case .pushMixed(.text(let text)):
            mixed.append(text)
        case .pushRandomNumber:
            mixed.append(Int.random(in: 1...100))
        case .pushFavorite:
            mixed.append(MixedTab.favorite)
        case .pushBook(let book):
            books.append(book)
        case .backToFirstBook:
            books.removeLast(max(0, books.count - 1))
        case .pushSelection(let selection):
            library.append(selection)
        case .showSettings:
            tab = .library
            library = [.settings]
        case .back:
            removeLast(1)
        case .popToRoot:
            removeLast(depth)
        }
        trimCursors()
    }

    private mutating func removeLast(_ count: Int) {
        switch tab {
        case .mixed: mixed.removeLast(count)
        case .books: books.removeLast(min(count, books.count))
        case .library: library.removeLast(min(count, library.count))
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
