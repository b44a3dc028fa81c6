/// A book of the Books tab, whose stack is a typed `[Book]` path: the whole
/// value is stored, not a reference.
struct Book: Codable, Hashable, Sendable {
    let id: Int
    let title: String
    let author: String
    let year: Int
    /// Books a reader of this one might open next (their ids).
    let suggestions: [Int]
}

extension Book {
    /// The Books tab's built-in shelf.
    static let shelf: [Book] = [
        Book(id: 1, title: "Dune", author: "Frank Herbert", year: 1965, suggestions: [2, 5]),
        Book(id: 2, title: "Foundation", author: "Isaac Asimov", year: 1951, suggestions: [3, 1]),
        Book(id: 3, title: "Solaris", author: "Stanislaw Lem", year: 1961, suggestions: [4, 6]),
        Book(id: 4, title: "The Dispossessed", author: "Ursula K. Le Guin", year: 1974, suggestions: [6, 2]),
        Book(id: 5, title: "Hyperion", author: "Dan Simmons", year: 1989, suggestions: [1, 3]),
        Book(id: 6, title: "Kindred", author: "Octavia E. Butler", year: 1979, suggestions: [4, 5]),
    ]

    /// The shelf's book with `id`, if there is one.
    static func onShelf(id: Int) -> Book? {
        shelf.first { $0.id == id }
    }
}
