/// The scene keys the demo keeps its state under.
enum DemoKeys {
    static let tab = "tab"
    static let mixedPath = "mixed.path"
    static let booksPath = "books.path"
    static let libraryPath = "library.path"
    static let cursors = "cursors"

    static let all: Set<String> = [tab, mixedPath, booksPath, libraryPath, cursors]
}
