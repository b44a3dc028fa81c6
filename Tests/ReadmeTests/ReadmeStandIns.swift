import Observation
import SceneStore

// What the documents' examples refer to without declaring it, shared by
// the README's and the articles' compiled examples.

/// A book to push (SceneNavigation.md, RestoringNavigation.md).
struct Book: Hashable, Codable, Sendable {
    var title: String
}

/// The model of TestingRelaunchAndCrashes.md's binding test.
@Observable @MainActor final class Settings {
    var selectedTab = 0
    var showHidden = false
    var zoom: Double? = nil
}

/// Marks values an example computed as used.
func use<each Value>(_ value: repeat each Value) {}
