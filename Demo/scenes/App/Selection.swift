import SceneNavigation

/// One screen of the Library stack. It holds only ids, so it is its own
/// persisted reference: restoring looks the ids up in the current catalog
/// and drops the items that were removed from it.
enum Selection: Hashable, Codable, Sendable, PathReferencing {
    case song(Int)
    case movie(Int)
    case book(Int)
    case settings

    var pathReference: Selection { self }

    /// The kind as the headless JSON names it: `song`, `movie`, `book`, `settings`.
    var kind: String {
        switch self {
        case .song: "song"
        case .movie: "movie"
        case .book: "book"
        case .settings: "settings"
        }
    }

    /// The item's id (`nil` for settings).
    var id: Int? {
        switch self {
        case .song(let id), .movie(let id), .book(let id): id
        case .settings: nil
        }
    }

    /// How an element whose item is gone is reported: kind and id.
    var reference: String {
        switch self {
        case .song(let id), .movie(let id), .book(let id): "\(kind) #\(id)"
        case .settings: kind
        }
    }
}

extension Selection: CustomStringConvertible {
    /// The kind and id, as a dropped element is reported: `song #3`.
    var description: String {
        reference
    }
}
