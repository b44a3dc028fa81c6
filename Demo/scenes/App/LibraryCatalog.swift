/// The Library tab's data: songs, movies and books. It lives in a file in
/// the scenes root (see ``CatalogFile``) so that it can change between
/// launches; the Library stack stores only ids into it.
struct LibraryCatalog: Codable, Equatable, Sendable {
    struct Song: Codable, Equatable, Sendable {
        let id: Int
        let title: String
        let artist: String
        let year: Int
    }

    struct Movie: Codable, Equatable, Sendable {
        let id: Int
        let title: String
        let director: String
        let year: Int
    }

    struct Book: Codable, Equatable, Sendable {
        let id: Int
        let title: String
        let author: String
        let year: Int
    }

    /// An item `scenes catalog remove` took out, remembered so that a
    /// scene that still held it can say which one it was.
    struct RemovedItem: Codable, Equatable, Sendable {
        let kind: String
        let id: Int
        let title: String
    }

    var songs: [Song]
    var movies: [Movie]
    var books: [Book]
    /// Absent from catalogs written before items were remembered.
    var removed: [RemovedItem]? = nil

    /// What a first launch writes.
    static let defaults = LibraryCatalog(
        songs: [
            Song(id: 1, title: "Blue in Green", artist: "Miles Davis", year: 1959),
            Song(id: 2, title: "Hounds of Love", artist: "Kate Bush", year: 1985),
            Song(id: 3, title: "Teardrop", artist: "Massive Attack", year: 1998),
            Song(id: 4, title: "Heroes", artist: "David Bowie", year: 1977),
        ],
        movies: [
            Movie(id: 1, title: "Stalker", director: "Andrei Tarkovsky", year: 1979),
            Movie(id: 2, title: "Spirited Away", director: "Hayao Miyazaki", year: 2001),
            Movie(id: 3, title: "Arrival", director: "Denis Villeneuve", year: 2016),
        ],
        books: [
            Book(id: 1, title: "Invisible Cities", author: "Italo Calvino", year: 1972),
            Book(id: 2, title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", year: 1969),
            Book(id: 3, title: "Piranesi", author: "Susanna Clarke", year: 2020),
        ])

    /// Every item as a selection, songs first, in catalog order.
    var allItems: [Selection] {
        songs.map { .song($0.id) } + movies.map { .movie($0.id) } + books.map { .book($0.id) }
    }

    /// Whether the item a selection names is still in the catalog
    /// (settings always is).
    func contains(_ selection: Selection) -> Bool {
        switch selection {
        case .song(let id): songs.contains { $0.id == id }
        case .movie(let id): movies.contains { $0.id == id }
        case .book(let id): books.contains { $0.id == id }
        case .settings: true
        }
    }

    /// The title of the item a selection names, or `nil` if it is gone.
    func title(of selection: Selection) -> String? {
        switch selection {
        case .song(let id): songs.first { $0.id == id }?.title
        case .movie(let id): movies.first { $0.id == id }?.title
        case .book(let id): books.first { $0.id == id }?.title
        case .settings: "Settings"
        }
    }

    /// The title a removed item had, if the catalog remembers it.
    func removedTitle(of selection: Selection) -> String? {
        removed?.last { $0.kind == selection.kind && $0.id == selection.id }?.title
    }

    /// A selection whose item is gone, as the demo names it:
    /// `song #4 "Heroes"` (or `song #4` when the title is not known).
    func describeGone(_ selection: Selection) -> String {
        removedTitle(of: selection).map { "\(selection.reference) \($0.debugDescription)" } ?? selection.reference
    }

    /// Takes out the items `remove` picks, remembering their titles.
    mutating func remove(where remove: (Selection, String) -> Bool) {
        var gone: [RemovedItem] = []
        songs.removeAll { song in remove(.song(song.id), song.title) && Self.record(&gone, "song", song.id, song.title) }
        movies.removeAll { movie in remove(.movie(movie.id), movie.title) && Self.record(&gone, "movie", movie.id, movie.title) }
        books.removeAll { book in remove(.book(book.id), book.title) && Self.record(&gone, "book", book.id, book.title) }
        guard !gone.isEmpty else { return }
        removed = (removed ?? []).filter { old in !gone.contains { $0.kind == old.kind && $0.id == old.id } } + gone
    }

    private static func record(_ gone: inout [RemovedItem], _ kind: String, _ id: Int, _ title: String) -> Bool {
        gone.append(RemovedItem(kind: kind, id: id, title: title))
        return true
    }

    /// "People also liked": the few items that follow `selection` in
    /// catalog order, wrapping around, across kinds.
    func alsoLiked(_ selection: Selection, count: Int = 3) -> [Selection] {
        let items = allItems
        guard let index = items.firstIndex(of: selection), items.count > 1 else { return [] }
        return (1...min(count, items.count - 1)).map { items[(index + $0) % items.count] }
    }
}
