import Foundation
import PropertyBased
@testable import SceneNavigation
import Testing

/// The history codec moves element lists as bytes (``HistoryDocument``);
/// it must write and read exactly what the element-tree route
/// (``StoredParts``) writes and reads, on every layout a document may have.
@Suite struct HistoryDocumentTests {
    private static let strings = ["", "a", "]}\"", "[{,:", "\\", "é 日本", "\n\t", "/"]

    private func randomStep(_ rng: inout Xoshiro) -> any ScenePathElement {
        let text = Self.strings.randomElement(using: &rng) ?? ""
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Int.random(in: -3...3, using: &rng)
        case 1: return text
        case 2: return Book(id: Int.random(in: 0...9, using: &rng), title: text, author: "x")
        default: return Shelf.rated(stars: Int.random(in: 0...5, using: &rng), by: text)
        }
    }

    /// What the element-tree route writes for `history`.
    private func treeEncoding(_ history: NavigationHistory<ScenePath>, _ path: PathCodec<ScenePath>) throws -> Data {
        func elements(_ steps: ScenePath) throws -> [StoredElement] {
            try #require(StoredParts(of: path.encode(steps))).elements
        }
        return try StoredParts(
            elements: elements(history.path), forward: elements(history.forwardStack), recent: elements(history.recentStack)
        ).encoded()
    }

    /// The three lists the element-tree route reads from `data`.
    private func treeLists(_ data: Data) -> (elements: [StoredElement], forward: [StoredElement], recent: [StoredElement])? {
        StoredParts(of: data).map { ($0.elements, $0.forward, $0.recent) }
    }

    @Test func aHistoryIsWrittenAsTheElementTreeRouteWritesIt() throws {
        var rng = Xoshiro(seed: (3, 5, 7, 11))
        let path = PathCodec<ScenePath>.scenePath(types: testTypes)
        let codec = PathCodec<NavigationHistory<ScenePath>>.history(path, limit: 5)
        for round in 0..<300 {
            var history = NavigationHistory<ScenePath>(limit: 5)
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0, 1: history.push(randomStep(&rng))
                case 2: _ = history.back(Int.random(in: 1...3, using: &rng))
                default: _ = history.forward()
                }
            }
            let bytes = try codec.encode(history)
            #expect(bytes == (try treeEncoding(history, path)), "round \(round): \(bytes.utf8)")
            #expect(try codec.decode(bytes).path == history, "round \(round)")
        }
    }

    /// Layouts SceneStore never writes but a document may have (another
    /// writer, a hand edit): whitespace, members in another order, an empty
    /// list, strings full of brackets, a member twice, a list that is not
    /// one. The lists cut from the bytes are the element-tree route's, or
    /// the cut declines and that route decides.
    @Test(arguments: [
        #"{"elements":[1],"version":1}"#,
        #"{ "version" : 1 , "recent" : [ {"tag":"int","value":2} ] , "elements" : [ ] }"#,
        #"{"elements":[],"forward":[],"recent":[],"version":1}"#,
        #"{"elements":[],"forward":[{"tag":"string","value":"]}[{\"\\"}],"version":1}"#,
        #"{"elements":[],"forward":[1],"forward":[2],"version":1}"#,
        #"{"elements":[],"forward":"[1]","version":1}"#,
        #"{"elements":[],"recent":[1],"version":2}"#,
        #"{"elements":{},"recent":[1],"version":1}"#,
        #"[{"elements":[],"recent":[1],"version":1}]"#,
        #"{"elements":[],"recent":[1],"version":1} x"#,
    ])
    func listsCutFromTheBytesAreTheElementTreeRoutesLists(_ text: String) throws {
        let data = Data(text.utf8)
        guard let cut = HistoryDocument.lists(of: data) else { return }
        let tree = try #require(treeLists(data), "the cut read a document the element-tree route refuses: \(text)")
        let elements = try #require(StoredParts(of: cut.elements)).elements
        let forward = try cut.forward.map { try #require(StoredParts(of: $0)).elements } ?? []
        let recent = try cut.recent.map { try #require(StoredParts(of: $0)).elements } ?? []
        #expect(elements == tree.elements, "\(text)")
        #expect(forward == tree.forward, "\(text)")
        #expect(recent == tree.recent, "\(text)")
    }

    @Test func theCutDeclinesWhatItCannotReadAlone() {
        #expect(HistoryDocument.lists(of: Data(#"{"elements":[],"forward":[1],"forward":[2],"version":1}"#.utf8)) == nil)
        #expect(HistoryDocument.lists(of: Data(#"{"elements":[],"forward":"[1]","version":1}"#.utf8)) == nil)
        #expect(HistoryDocument.lists(of: Data(#"{"elements":[],"recent":[1],"version":2}"#.utf8)) == nil)
        #expect(HistoryDocument.lists(of: Data(#"{"elements":[],"recent":[1],"version":1} x"#.utf8)) == nil)
        #expect(HistoryDocument.lists(of: Data(#"{"elements":[],"forward":[],"version":1}"#.utf8))?.forward == nil)
    }
}
