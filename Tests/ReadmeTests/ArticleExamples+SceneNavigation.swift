// The Swift blocks of the SceneNavigation.docc articles, compiled as in
// ArticleExamples+SceneStore.swift (same rules: blocks split at blank
// lines, lines compared without leading whitespace, clashing names nested
// in an enum per article). `ArticleDriftTests` fails when a block of an
// article is missing here. Stand-ins (`dune`, `pancakes`, `RecipeBox`,
// `model`) are in ArticleStandIns.swift.

// RestoringNavigation.md, "Bind the path to a scene key" (its statements
// are in restoringNavigation()).
import SceneNavigation
import SceneStore

// RestoringNavigation.md, "Bind the path to a scene key" with an
// `@Observable` model (its statements are in restoringNavigation()).
import Observation

// RestoringNavigation.md, "Make the values referable": file scope, as the
// extension must be.
struct Recipe: Identifiable, Hashable, Sendable {
    let id: Int
    var name: String
}
extension Recipe: PathReferencing {}

enum Screen: Hashable, Codable, Sendable, PathReferencing {
    case recipe(Recipe.ID), category(String), settings
    var pathReference: Screen { self }
}

/// SceneNavigation.md
enum SceneNavigationArticle {
    static func mixedPaths() throws {
        let types = ScenePathTypes([.init(Int.self), .init(String.self), .init(Book.self, tag: "book")])
        let codec = PathCodec.scenePath(types: types)

        var path = ScenePath()
        path.append(7)
        path.append(dune)
        let data = try codec.encode(path)

        let restored = try codec.decode(data)
        path = restored.path            // equal to the path that was saved
    }

    static func backAndForward(store: SceneStore) async throws {
        let binding = PathBinding(store: store, key: "books", codec: .history(.stack(of: Book.self)))
        var history = binding.restore()?.path ?? NavigationHistory()
        let before = history
        history.back()
        history = try await binding.commit(history, from: before)
        use(history)
    }

    static func restoreByIdentity(recipes: inout [Recipe]) throws {
        let codec = PathCodec.references(to: Recipe.self) { model.recipe(id: $0) }
        let data = try codec.encode(recipes)
        let restored = try codec.decode(data)
        recipes = restored.path         // restored.dropped lists the deleted IDs
    }
}

/// RestoringNavigation.md: its blocks build on each other, so its
/// statements form one function, in the article's order.
enum RestoringNavigationArticle {
    @Observable @MainActor final class Navigation {
        var path: [Recipe] = []
    }

    @MainActor static func restoringNavigation() async throws {
        // Bind the path to a scene key
        let store = try await SceneRegistry(appID: "com.example.cookbook").store(for: "main")
        let recipes = RecipeBox.load()                   // the app's data
        let binding = PathBinding(store: store, key: "recipes.path",
            codec: .references(to: Recipe.self) { id in recipes.recipe(id: id) })

        let navigation = Navigation()
        let bound = binding.bind(\.path, on: navigation)
        navigation.path.append(pancakes)                 // saved as its ID

        var path = binding.restore()?.path ?? []         // once, at launch: deleted IDs are left out
        let before = path
        path.append(pancakes)
        path = try await binding.commit(path, from: before)  // on every change; show what it returns
        for await latest in binding.externalChanges() {  // another window navigated
            path = latest.path
        }

        // Mixed paths
        let types = ScenePathTypes([.init(Int.self), .init(String.self), .init(Screen.self, tag: "screen")])
        let mixed = PathBinding(store: store, key: "mixed.path", codec: .scenePath(types: types))

        // Two windows, one scene
        path = try await binding.commit(path + [pancakes], from: path)
        use(bound, mixed)
    }
}
