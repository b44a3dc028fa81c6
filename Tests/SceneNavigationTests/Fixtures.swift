import Foundation
import SceneNavigation
import Synchronization

/// A custom element type, as in the tutorial's second tab.
struct Book: Hashable, Codable, Sendable, Identifiable {
    var id: Int
    var title: String
    var author: String
}

/// An enum element with payloads.
enum Shelf: Hashable, Codable, Sendable {
    case recent
    case genre(String)
    case rated(stars: Int, by: String)
}

/// Book as it was stored by an older release: `pages` instead of `author`.
struct BookBeforeRename: Hashable, Codable, Sendable {
    var id: Int
    var title: String
    var pages: Int
}

let dune = Book(id: 1, title: "Dune", author: "Frank Herbert")
let emma = Book(id: 2, title: "Emma", author: "Jane Austen")
let ulysses = Book(id: 3, title: "Ulysses", author: "James Joyce")

/// The registry most tests use.
let testTypes = ScenePathTypes([
    .init(Int.self),
    .init(String.self),
    .init(Book.self, tag: "book"),
    .init(Shelf.self, tag: "shelf"),
])

extension Data {
    var utf8: String { String(decoding: self, as: UTF8.self) }
}

// MARK: - A type that must never be instantiated

/// Set when any `Tripwire` is decoded.
let tripwireDecoded = Mutex(false)

/// A type named in test files under its would-be tag but never registered:
/// decoding one flips `tripwireDecoded`.
struct Tripwire: Hashable, Codable, Sendable {
    var payload: String

    init(payload: String) {
        self.payload = payload
    }

    init(from decoder: any Decoder) throws {
        tripwireDecoded.withLock { $0 = true }
        payload = try decoder.singleValueContainer().decode(String.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(payload)
    }
}

// MARK: - Restore by identity: a small catalog, as in the tutorial's third tab

struct Song: Hashable, Codable, Sendable, Identifiable {
    var id: UUID
    var title: String
}

struct Movie: Hashable, Codable, Sendable, Identifiable {
    var id: UUID
    var title: String
}

/// A selection whose cases carry IDs: it is its own reference.
enum Selection: Hashable, Codable, Sendable, PathReferencing {
    case song(Song.ID)
    case movie(Movie.ID)
    case book(Book.ID)
    case settings

    var pathReference: Selection { self }
}

/// A selection whose cases carry whole values; it persists a reference enum.
enum Screen: Hashable, Sendable, PathReferencing {
    case song(Song)
    case movie(Movie)
    case settings

    enum Reference: Hashable, Codable, Sendable {
        case song(Song.ID)
        case movie(Movie.ID)
        case settings
    }

    var pathReference: Reference {
        switch self {
        case .song(let song): .song(song.id)
        case .movie(let movie): .movie(movie.id)
        case .settings: .settings
        }
    }
}

extension Book: PathReferencing {}

struct Catalog {
    var songs: [Song.ID: Song] = [:]
    var movies: [Movie.ID: Movie] = [:]
    var books: [Book.ID: Book] = [:]

    func contains(_ selection: Selection) -> Bool {
        switch selection {
        case .song(let id): songs[id] != nil
        case .movie(let id): movies[id] != nil
        case .book(let id): books[id] != nil
        case .settings: true
        }
    }

    func screen(for reference: Screen.Reference) -> Screen? {
        switch reference {
        case .song(let id): songs[id].map(Screen.song)
        case .movie(let id): movies[id].map(Screen.movie)
        case .settings: .settings
        }
    }
}

extension RestoredPath {
    /// The references a restore by reference found no value for, in
    /// stored order, read as `Reference`s.
    func unresolved<Reference>(as type: Reference.Type) -> [Reference] {
        dropped.compactMap { element in
            if case .unresolved(let reference) = element.reason { reference as? Reference } else { nil }
        }
    }
}

extension ScenePath {
    /// The element at `position` as a `Value`; `nil` out of bounds or for
    /// another type (a path is a collection: `path[position] as? Value`).
    func element<Value>(at position: Int, as type: Value.Type) -> Value? {
        indices.contains(position) ? self[position] as? Value : nil
    }
}
