import SceneNavigation

/// One line of headless output: the whole visible state of the scene.
///
/// `{"scene":"main","tab":"books","stacks":{"mixed":[3,"a"],"books":["Dune"],
/// "library":[{"song":"Teardrop"},{"settings":true}]},"forward":{"mixed":[7],
/// "books":[],"library":[]},"screen":{"title":..,"links":[..]},"origin":"local"}`
struct StateLine: Encodable, Equatable {
    enum Origin: String, Encodable {
        case local, external
    }

    struct Stacks: Encodable, Equatable {
        var mixed: [MixedElement]
        var books: [String]
        var library: [LibraryElement]
    }

    struct ScreenSummary: Encodable, Equatable {
        var title: String
        var links: [String]
    }

    var scene: String
    var tab: String
    var stacks: Stacks
    /// Each stack's forward entries, the next first.
    var forward: Stacks
    var screen: ScreenSummary
    var origin: Origin

    init(scene: String, state: DemoState, catalog: LibraryCatalog, origin: Origin) {
        self.scene = scene
        tab = state.tab.rawValue
        stacks = Stacks(
            mixed: state.mixed.path.map(MixedElement.init),
            books: state.books.path.map(\.title),
            library: state.library.path.map { LibraryElement(selection: $0, catalog: catalog) })
        forward = Stacks(
            mixed: state.mixed.forwardSteps.map(MixedElement.init),
            books: state.books.forwardSteps.map(\.title),
            library: state.library.forwardSteps.map { LibraryElement(selection: $0, catalog: catalog) })
        let current = state.screen(in: catalog)
        screen = ScreenSummary(title: current.title, links: current.links.map(\.label))
        self.origin = origin
    }
}

/// A Mixed element as its raw JSON value: a number or a string.
struct MixedElement: Encodable, Equatable {
    let value: MixedValue

    init(_ element: any ScenePathElement) {
        if let number = element as? Int {
            value = .number(number)
        } else if let text = element as? String {
            value = .text(text)
        } else {
            value = .text(String(describing: element))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }
}

/// A Library element as a one-key object: `{"song":"Title"}`, `{"settings":true}`.
struct LibraryElement: Encodable, Equatable {
    let kind: String
    let title: String?

    init(selection: Selection, catalog: LibraryCatalog) {
        kind = selection.kind
        title = selection == .settings ? nil : catalog.title(of: selection) ?? selection.reference
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        if let title {
            try container.encode(title, forKey: Key(stringValue: kind))
        } else {
            try container.encode(true, forKey: Key(stringValue: kind))
        }
    }
}
