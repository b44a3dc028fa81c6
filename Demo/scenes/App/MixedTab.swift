import SceneNavigation

/// The Mixed tab: a type-erased path of `Int`s and `String`s.
enum MixedTab {
    /// The element types its path may hold, with their stored tags.
    static let types = ScenePathTypes([.init(Int.self), .init(String.self)])

    /// What "push favorite" pushes.
    static let favorite = "favorite"

    /// The current screen for `path`.
    static func screen(for path: ScenePath) -> Screen {
        let title = path.last.map(self.title(of:)) ?? Tab.mixed.title
        var links = (1...3).map { ScreenLink(label: "Number \($0)", action: .pushMixed(.number($0))) }
        links += ["a", "b", "c"].map { ScreenLink(label: Self.title(of: $0), action: .pushMixed(.text($0))) }
        links.append(ScreenLink(label: "Push random number", action: .pushRandomNumber))
        links.append(ScreenLink(label: "Push favorite", action: .pushFavorite))
        if !path.isEmpty {
            links.append(ScreenLink(label: "Back", action: .back))
            links.append(ScreenLink(label: "Pop to root", action: .popToRoot))
        }
        return Screen(
            title: title,
            details: ["Path count: \(path.count)", "Path: [" + path.map(literal(of:)).joined(separator: ", ") + "]"],
            links: links)
    }

    /// How an element reads in a title, the breadcrumb and the link that
    /// pushes it: `Number 3`, `Text "a"` (every String alike).
    static func title(of element: any ScenePathElement) -> String {
        switch element {
        case let number as Int: "Number \(number)"
        case let text as String: "Text \"\(text)\""
        default: String(describing: element)
        }
    }

    /// An element as a literal: `7`, `"a"`.
    static func literal(of element: any ScenePathElement) -> String {
        switch element {
        case let text as String: "\"\(text)\""
        default: String(describing: element)
        }
    }
}
