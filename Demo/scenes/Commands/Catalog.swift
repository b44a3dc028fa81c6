import ArgumentParser
import Foundation
import ScenesCLIKit

struct Catalog: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List or edit the Library catalog that `scenes run` shows.",
        discussion: """
            The catalog is <root>/catalog/library.json (0600, in a 0700 folder, written \
            atomically under a lock, never through a symbolic link), written with a few \
            songs, movies and books on first use; `list` alone writes nothing. Library stacks store ids into it: an item removed here is \
            dropped from every scene's Library stack at its next launch.
            """,
        subcommands: [CatalogList.self, CatalogRemove.self, CatalogReset.self],
        defaultSubcommand: CatalogList.self
    )
}

struct CatalogList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the catalog.")

    @OptionGroup var rootOptions: RootOptions
    @Flag(help: "Print the catalog as one JSON object.") var json = false

    func run() throws {
        let catalog: LibraryCatalog
        do {
            catalog = try CatalogFile(root: rootOptions.rootURL()).loadWithoutCreating()
        } catch {
            throw failure("\(error)")
        }
        if json {
            emit(try jsonLine(catalog))
            return
        }
        for song in catalog.songs { emit("song   \(song.title) - \(song.artist) (\(song.year))".terminalSafe) }
        for movie in catalog.movies { emit("movie  \(movie.title) - \(movie.director) (\(movie.year))".terminalSafe) }
        for book in catalog.books { emit("book   \(book.title) - \(book.author) (\(book.year))".terminalSafe) }
    }
}

struct CatalogRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove one song, movie or book, by title.")

    @OptionGroup var rootOptions: RootOptions
    @Option(help: "The title of a song to remove.") var song: String?
    @Option(help: "The title of a movie to remove.") var movie: String?
    @Option(help: "The title of a book to remove.") var book: String?

    func validate() throws {
        guard [song, movie, book].compactMap({ $0 }).count == 1 else {
            throw ValidationError("name exactly one of --song, --movie, --book")
        }
    }

    func run() throws {
        let file = CatalogFile(root: try rootOptions.rootURL())
        struct NoSuchItem: Error {}
        do {
            try file.update { catalog in
                let before = catalog
                catalog.remove { selection, title in
                    switch selection {
                    case .song: title == song
                    case .movie: title == movie
                    case .book: title == book
                    case .settings: false
                    }
                }
                if catalog == before { throw NoSuchItem() }
            }
        } catch is NoSuchItem {
            throw failure("no such item in the catalog: \((song ?? movie ?? book ?? "").debugDescription)")
        } catch {
            throw failure("\(error)")
        }
    }
}

struct CatalogReset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset", abstract: "Put the built-in catalog back.")

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        do {
            try CatalogFile(root: rootOptions.rootURL()).save(.defaults)
        } catch {
            throw failure("\(error)")
        }
    }
}
