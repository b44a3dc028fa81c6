/// What the current screen of a tab shows: a title, a few lines of detail,
/// and links, each of which performs one navigation action.
struct Screen: Equatable, Sendable {
    var title: String
    var details: [String]
    var links: [ScreenLink]
}

/// A link (or button) on a screen.
struct ScreenLink: Equatable, Sendable {
    var label: String
    var action: DemoAction
}

/// A value pushed on the Mixed tab's type-erased path.
enum MixedValue: Equatable, Sendable {
    case number(Int)
    case text(String)

    /// An integer if `argument` reads as one, else the string itself.
    init(argument: String) {
        if let number = Int(argument) {
            self = .number(number)
        } else {
            self = .text(argument)
        }
    }
}

/// Everything the user can do, by key, by link or by headless command.
enum DemoAction: Equatable, Sendable {
    case selectTab(Tab)
    case pushMixed(MixedValue)
    case pushRandomNumber
    case pushFavorite
    case pushBook(Book)
    case backToFirstBook
    case pushSelection(Selection)
    /// The deep link: switches to the Library tab and *replaces* its path.
    case showSettings
    case back
    case popToRoot
    /// Brings back the screen `back` left, as a browser's forward button.
    case forward
}
