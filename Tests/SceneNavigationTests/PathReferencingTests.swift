import Foundation
import SceneNavigation
import Testing

@Suite struct PathReferencingTests {
    @Test func identifiableReferenceIsItsID() {
        #expect(dune.pathReference == 1)
        #expect([dune, emma].map(\.pathReference) == [1, 2])
    }

    @Test func restoreByIDDropsDeletedAndKeepsOrder() throws {
        var model = [1: dune, 2: emma, 3: ulysses]
        let path = [ulysses, dune, emma, ulysses]
        let data = try path.encodedReferences()
        #expect(data.utf8 == #"{"elements":[3,1,2,3],"version":1}"#)

        model[3] = nil
        let restored = try [Book].restore(references: data, policy: .lenient) { model[$0] }
        #expect(restored.path == [dune, emma])
        #expect(restored.unresolved(as: Int.self) == [3, 3])
        #expect(restored.dropped.map(\.position) == [0, 3])
        #expect(restored.dropped.map(\.description) == ["no longer exists: 3", "no longer exists: 3"])
    }

    @Test func restoreResolvesAgainstCurrentData() throws {
        let data = try [dune].encodedReferences()
        let edited = Book(id: 1, title: "Dune (revised)", author: "Frank Herbert")
        let restored = try [Book].restore(references: data, policy: .strict) { $0 == 1 ? edited : nil }
        #expect(restored.path == [edited])
        #expect(restored.dropped.isEmpty)
    }

    @Test func enumWithIDsDropsDeletedCasesAndKeepsOrder() throws {
        let song = Song(id: UUID(), title: "So What")
        let movie = Movie(id: UUID(), title: "Alien")
        var catalog = Catalog(
            songs: [song.id: song],
            movies: [movie.id: movie],
            books: [dune.id: dune, emma.id: emma]
        )
        let path: [Selection] = [.book(dune.id), .song(song.id), .movie(movie.id), .book(emma.id), .settings]
        let data = try path.encodedReferences()

        catalog.songs[song.id] = nil
        catalog.books[dune.id] = nil
        let restored = try [Selection].restore(references: data, policy: .strict) { selection in
            catalog.contains(selection) ? selection : nil
        }
        #expect(restored.path == [.movie(movie.id), .book(emma.id), .settings])
        #expect(restored.unresolved(as: Selection.self) == [.book(dune.id), .song(song.id)])
    }

    @Test func enumCarryingValuesPersistsReferenceEnum() throws {
        let song = Song(id: UUID(), title: "So What")
        let movie = Movie(id: UUID(), title: "Alien")
        var catalog = Catalog(songs: [song.id: song], movies: [movie.id: movie])
        let path: [Screen] = [.song(song), .movie(movie), .settings]
        let data = try path.encodedReferences()
        #expect(!data.utf8.contains("So What"))

        catalog.movies[movie.id] = nil
        let restored = try [Screen].restore(references: data, policy: .lenient, resolve: catalog.screen(for:))
        #expect(restored.path == [.song(song), .settings])
        #expect(restored.unresolved(as: Screen.Reference.self) == [.movie(movie.id)])
    }

    @Test func undecodableReferencesFollowThePolicy() throws {
        let data = Data(#"{"elements":[2,"x",1],"version":1}"#.utf8)
        let model = [1: dune, 2: emma]
        let restored = try [Book].restore(references: data, policy: .lenient) { model[$0] }
        #expect(restored.path == [emma, dune])
        #expect(restored.dropped.map(\.position) == [1])
        #expect(restored.unresolved(as: Int.self).isEmpty)
        _ = #expect(throws: ScenePathError.self) {
            try [Book].restore(references: data, policy: .strict) { model[$0] }
        }
    }

    @Test func undecodableAndUnresolvedReferencesAreDroppedInStoredOrder() throws {
        let data = Data(#"{"elements":[9,"x",1,7],"version":1}"#.utf8)
        let model = [1: dune]
        let restored = try [Book].restore(references: data, policy: .lenient) { model[$0] }
        #expect(restored.path == [dune])
        #expect(restored.dropped.map(\.position) == [0, 1, 3])
        #expect(restored.unresolved(as: Int.self) == [9, 7])
        guard case .undecodable = restored.dropped[1].reason else {
            Issue.record("position 1 should be undecodable, is \(restored.dropped[1])")
            return
        }
        // Strict refuses what does not decode, never what does not resolve.
        let strict = try [Book].restore(references: Data(#"{"elements":[9,1],"version":1}"#.utf8), policy: .strict) { model[$0] }
        #expect(strict.path == [dune])
        #expect(strict.unresolved(as: Int.self) == [9])
    }
}
