/// The Books tab: a typed `[Book]` path over the built-in shelf.
enum BooksTab {
    /// The current screen for `path`.
    static func screen(for path: [Book]) -> Screen {
        guard let book = path.last else {
            return Screen(
                title: Tab.books.title,
                details: ["\(Book.shelf.count) books on the shelf."],
                links: Book.shelf.map { ScreenLink(label: "\($0.title) (\($0.author))", action: .pushBook($0)) })
        }
        var links = book.suggestions.compactMap(Book.onShelf(id:)).map {
            ScreenLink(label: "Suggestion: \($0.title)", action: .pushBook($0))
        }
        if path.count > 1 {
            links.append(ScreenLink(label: "Back to first book", action: .backToFirstBook))
        }
        links.append(ScreenLink(label: "Back", action: .back))
        links.append(ScreenLink(label: "Pop to root", action: .popToRoot))
        return Screen(
            title: book.title,
            details: ["by \(book.author), \(book.year)", "Books deep: \(path.count)"],
            links: links)
    }
}
