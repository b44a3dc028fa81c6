import SceneNavigation
import SceneStore

// What the DocC articles' examples refer to without declaring it: the app's
// own data and functions, reduced to what the examples need. The stand-ins
// the README's examples share with them (`Book`, `Settings`, `use`) are in
// ReadmeStandIns.swift.

/// A book to push (SceneNavigation.md).
let dune = Book(title: "Dune")

/// A recipe to push (RestoringNavigation.md).
let pancakes = Recipe(id: 1, name: "Pancakes")

/// The app's recipes, which restored IDs are looked up in.
struct RecipeBox: Sendable {
    var recipes: [Recipe]

    static func load() -> RecipeBox { RecipeBox(recipes: [pancakes]) }
    func recipe(id: Recipe.ID) -> Recipe? { recipes.first { $0.id == id } }
}

func log(_ update: SceneUpdate) {}

extension SceneNavigationArticle {
    /// The app's data (SceneNavigation.md calls it `model`).
    static let model = RecipeBox.load()
}
