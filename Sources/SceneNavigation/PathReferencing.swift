/// A value that a navigation path persists as a small reference (usually an
/// ID) and looks up again in the app's data when the path is restored.
///
/// Persisting references instead of whole values keeps saved paths small and
/// means a restored screen shows the *current* data, not a stale copy. Values
/// deleted since the path was saved simply fail the lookup and are dropped.
///
/// `Identifiable` types whose `ID` is `Hashable & Codable & Sendable` conform
/// with an empty extension; their reference is their `id`:
///
/// ```swift
/// struct Recipe: Identifiable { let id: UUID; var name: String }
/// extension Recipe: PathReferencing {}
/// ```
///
/// An enum whose cases carry IDs can be its own reference:
///
/// ```swift
/// enum Selection: Hashable, Codable, Sendable, PathReferencing {
///     case song(Song.ID), movie(Movie.ID), book(Book.ID), settings
///     var pathReference: Selection { self }
/// }
/// ```
///
/// ``PathCodec/references(to:policy:resolve:)`` stores such a path and
/// resolves it at restore.
public protocol PathReferencing {
    /// What is persisted in place of the value.
    associatedtype Reference: Hashable & Codable & Sendable

    /// The reference to persist. Resolving it later, while the value still
    /// exists in the app's data, must give back an equivalent value.
    var pathReference: Reference { get }
}

extension PathReferencing where Self: Identifiable, ID: Hashable & Codable & Sendable {
    /// The value's `id`.
    public var pathReference: ID {
        id
    }
}
