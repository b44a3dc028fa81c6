import SceneNavigation

/// The Library tab: a `Selection` path over the catalog, persisted by id.
enum LibraryTab {
    /// Stores the ids, and the history's; restoring drops the ones the
    /// catalog no longer has.
    static func codec(for catalog: LibraryCatalog) -> PathCodec<NavigationHistory<[Selection]>> {
        .history(.references(to: Selection.self) { selection in catalog.contains(selection) ? selection : nil })
    }

    /// How many recently viewed screens the root lists.
    static let recentCount = 5

    /// The current screen for `path`; the root lists the screens of this
    /// scene viewed last (the tutorial's history timeline), newest first.
    static func screen(for path: [Selection], recentlyViewed: [Selection], in catalog: LibraryCatalog) -> Screen {
        guard let selection = path.last else {
            let counts = "\(catalog.songs.count) songs, \(catalog.movies.count) movies, \(catalog.books.count) books"
            var links = catalog.allItems.map { ScreenLink(label: label(for: $0, in: catalog), action: .pushSelection($0)) }
            links.append(ScreenLink(label: "Settings", action: .showSettings))
            links += recentlyViewed.prefix(recentCount).map {
                ScreenLink(label: "Recently viewed: " + label(for: $0, in: catalog), action: .pushSelection($0))
            }
            return Screen(title: Tab.library.title, details: [counts], links: links)
        }
        var links: [ScreenLink] = []
        if selection != .settings {
            links += catalog.alsoLiked(selection).map {
                ScreenLink(label: "People also liked: " + label(for: $0, in: catalog), action: .pushSelection($0))
            }
            links.append(ScreenLink(label: "Settings", action: .showSettings))
        }
        links.append(ScreenLink(label: "Back", action: .back))
        links.append(ScreenLink(label: "Pop to root", action: .popToRoot))
        return Screen(
            title: catalog.title(of: selection) ?? "(removed \(catalog.describeGone(selection)))",
            details: details(of: selection, in: catalog),
            links: links)
    }

    /// A link's label: kind and title.
    static func label(for selection: Selection, in catalog: LibraryCatalog) -> String {
        let title = catalog.title(of: selection) ?? "(removed \(catalog.describeGone(selection)))"
        return selection == .settings ? title : "\(selection.kind.capitalized): \(title)"
    }

    private static func details(of selection: Selection, in catalog: LibraryCatalog) -> [String] {
        switch selection {
        case .song(let id):
            catalog.songs.first { $0.id == id }.map { ["Song by \($0.artist), \($0.year)"] } ?? []
        case .movie(let id):
            catalog.movies.first { $0.id == id }.map { ["Movie by \($0.director), \($0.year)"] } ?? []
        case .book(let id):
            catalog.books.first { $0.id == id }.map { ["Book by \($0.author), \($0.year)"] } ?? []
        case .settings:
            ["Opened by a deep link: it replaced the whole Library path."]
        }
    }
}
