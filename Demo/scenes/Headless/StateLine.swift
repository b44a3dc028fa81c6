import SceneNavigation
import ScenesCLIKit

/// One line of headless output: the whole visible state of the scene.
///
/// `{"scene":"main","tab":"books","stacks":{"mixed":[3,"a"],"books":["Dune"],
/// "library":[{"song":"Teardrop"},{"settings":true}]},"forward":{"mixed":[7],
/// "books":[],"library":[]},"screen":{"title":..,"links":[..]},"origin":"local"}`
struct StateLine: Equatable {
    enum Origin: String {
        case local, external
    }

    struct Stacks: Equatable {
        var mixed: [MixedElement]
        var books: [String]
        var library: [LibraryElement]
    }

    struct ScreenSummary: Equatable {
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
struct MixedElement: Equatable {
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
}

/// A Library element as a one-key object: `{"song":"Title"}`, `{"settings":true}`.
struct LibraryElement: Equatable {
    let kind: String
    let title: String?

    init(selection: Selection, catalog: LibraryCatalog) {
        kind = selection.kind
        title = selection == .settings ? nil : catalog.title(of: selection) ?? selection.reference
    }
}

extension StateLine {
    /// The line as `jsonLine` wrote it from the Encodable form this type
    /// had (compact, keys sorted, terminal-safe escapes), written by hand:
    /// JSONEncoder took 12% of a mirroring window's time per change
    /// (`bench mirror`, perf).
    var json: String {
        var out = #"{"forward":"#
        Self.append(forward, to: &out)
        out += #","origin":""# + origin.rawValue + #"","scene":"#
        appendJSONString(scene, to: &out)
        out += #","screen":{"links":["#
        for (index, link) in screen.links.enumerated() {
            if index > 0 { out += "," }
            appendJSONString(link, to: &out)
        }
        out += #"],"title":"#
        appendJSONString(screen.title, to: &out)
        out += #"},"stacks":"#
        Self.append(stacks, to: &out)
        out += #","tab":"#
        appendJSONString(tab, to: &out)
        out += "}"
        return out
    }

    private static func append(_ stacks: Stacks, to out: inout String) {
        out += #"{"books":["#
        for (index, title) in stacks.books.enumerated() {
            if index > 0 { out += "," }
            appendJSONString(title, to: &out)
        }
        out += #"],"library":["#
        for (index, element) in stacks.library.enumerated() {
            if index > 0 { out += "," }
            out += "{"
            appendJSONString(element.kind, to: &out)
            out += ":"
            if let title = element.title { appendJSONString(title, to: &out) } else { out += "true" }
            out += "}"
        }
        out += #"],"mixed":["#
        for (index, element) in stacks.mixed.enumerated() {
            if index > 0 { out += "," }
            switch element.value {
            case .number(let number): out += String(number)
            case .text(let text): appendJSONString(text, to: &out)
            }
        }
        out += "]}"
    }
}
