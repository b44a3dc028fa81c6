import Foundation
import SceneNavigation
import Testing

@Suite struct TypedPathTests {
    @Test func bookStackRoundTrips() throws {
        let books = [dune, emma, ulysses]
        let data = try books.encodedPath()
        let restored = try [Book].restore(from: data, policy: .strict)
        #expect(restored.path == books)
        #expect(restored.dropped.isEmpty)
    }

    @Test func encodingIsDeterministicAndReadable() throws {
        let data = try [emma].encodedPath()
        #expect(data.utf8 == #"{"elements":[{"author":"Jane Austen","id":2,"title":"Emma"}],"version":1}"#)
        var built = [dune, emma]
        built.removeFirst()
        #expect(try built.encodedPath() == data)
        #expect(try [Int]().encodedPath().utf8 == #"{"elements":[],"version":1}"#)
    }

    @Test func enumStackRoundTrips() throws {
        let shelves: [Shelf] = [.recent, .genre("poetry"), .rated(stars: 5, by: "bo")]
        #expect(try [Shelf].restore(from: shelves.encodedPath(), policy: .strict).path == shelves)
    }

    private func mixedGenerations() throws -> Data {
        // Written as an array of the old shape with one new-shape element in
        // the middle, as if two releases had written to the same key.
        let old = try [BookBeforeRename(id: 9, title: "Old", pages: 1)].encodedPath().utf8
        let new = try [dune, emma].encodedPath().utf8
        let oldElement = old.dropFirst(#"{"elements":["#.count).prefix { $0 != "]" }
        let merged = new.replacingOccurrences(of: #"{"elements":["#, with: #"{"elements":["# + oldElement + ",")
        return Data(merged.utf8)
    }

    @Test func elementThatNoLongerDecodesFailsStrict() throws {
        let error = #expect(throws: ScenePathError.self) {
            try [Book].restore(from: try mixedGenerations(), policy: .strict)
        }
        guard case .undecodableElement(nil, 0, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    @Test func elementThatNoLongerDecodesIsDroppedWhenLenient() throws {
        let restored = try [Book].restore(from: try mixedGenerations(), policy: .lenient)
        #expect(restored.path == [dune, emma])
        #expect(restored.dropped.map(\.position) == [0])
        #expect(restored.dropped.map(\.tag) == [nil])
    }

    @Test func corruptDataFails() {
        let error = #expect(throws: ScenePathError.self) {
            try [Book].restore(from: Data("[1,2]".utf8), policy: .lenient)
        }
        guard case .corruptData = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    /// An element nested past 512 levels (a tree of an app's own type)
    /// is refused with its position; 10,000 deep it used to overflow the
    /// stack inside `JSONEncoder` and kill the process.
    @Test(arguments: [513, 10_000])
    func anElementTooDeepToEncodeNamesPosition(depth: Int) {
        let error = #expect(throws: ScenePathError.self) {
            try [Nested(depth: 1), Nested(depth: depth)].encodedPath()
        }
        guard case .unencodableElement(nil, 1, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    @Test func unencodableElementNamesPosition() {
        let error = #expect(throws: ScenePathError.self) {
            try [1.0, 2.0, .infinity].encodedPath()
        }
        guard case .unencodableElement(nil, 2, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }
}

/// An element whose encoding nests `depth` arrays.
private struct Nested: Codable, Hashable, Sendable {
    var depth: Int

    init(depth: Int) { self.depth = depth }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 0 { try container.encode(Nested(depth: depth - 1)) }
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        depth = container.isAtEnd ? 0 : try container.decode(Nested.self).depth + 1
    }
}
