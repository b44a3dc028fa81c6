import Foundation
import SceneNavigation

/// A struct element with nested, optional and collection fields.
struct FuzzBook: Hashable, Codable, Sendable {
    var id: Int
    var title: String
    var tags: [String]
    var rating: Double?
}

/// An enum element with payloads, the shape synthesized `Codable` nests.
enum FuzzShelf: Hashable, Codable, Sendable {
    case recent
    case genre(String)
    case rated(stars: Int8, by: String)
    case book(FuzzBook)
}

/// A stack persisted by reference: even IDs resolve, odd ones are gone.
struct FuzzScreen: Hashable, Sendable, PathReferencing {
    var id: Int

    var pathReference: Int { id }

    static func resolve(_ id: Int) -> FuzzScreen? {
        id.isMultiple(of: 2) ? FuzzScreen(id: id) : nil
    }
}

/// The registry the path fuzzer restores with: the standard tags, and
/// custom types under explicit tags. Every type here encodes
/// deterministically (no `Set`, no `Dictionary`), so a restored path must
/// give the same bytes each time it is encoded.
let fuzzTypes = ScenePathTypes([
    .init(Bool.self),
    .init(Int.self),
    .init(Int8.self),
    .init(UInt64.self),
    .init(Float.self),
    .init(Double.self),
    .init(String.self),
    .init(UUID.self),
    .init(URL.self),
    .init(Date.self),
    .init(Data.self),
    .init(Int?.self, tag: "int?"),
    .init([String].self, tag: "strings"),
    .init(FuzzBook.self, tag: "book"),
    .init(FuzzShelf.self, tag: "shelf"),
])
