import Foundation
@testable import SceneNavigation
import Testing

@Suite struct ScenePathTypesTests {
    private struct Nested: Hashable, Codable, Sendable {}
    private struct Generic<Value: Hashable & Codable & Sendable>: Hashable, Codable, Sendable {
        var value: Value
    }

    @Test func standardTypesHaveShortTags() {
        let types = ScenePathTypes([
            .init(Bool.self), .init(Int.self), .init(Double.self), .init(String.self),
            .init(UUID.self), .init(URL.self), .init(Date.self), .init(Data.self), .init(UInt16.self),
        ])
        #expect(types.tags == ["bool", "data", "date", "double", "int", "string", "uint16", "url", "uuid"])
    }

    @Test func customTypesGetTheirUnqualifiedName() {
        let types = ScenePathTypes([.init(Book.self), .init(Nested.self), .init(Generic<Int>.self)])
        #expect(types.tag(for: Book.self) == "Book")
        #expect(types.tag(for: Nested.self) == "Nested")
        #expect(types.tag(for: Generic<Int>.self) == "Generic<Int>")
    }

    @Test func explicitTagsOverrideDefaults() {
        let types = ScenePathTypes([.init(Int.self, tag: "number"), .init(Book.self, tag: "book")])
        #expect(types.tag(for: Int.self) == "number")
        #expect(types.tag(for: Book.self) == "book")
        #expect(types.tag(for: String.self) == nil)
    }

    @Test func overriddenTagIsWhatIsWrittenAndRead() throws {
        let types = ScenePathTypes([.init(Int.self, tag: "number")])
        let data = try ScenePath([4]).encoded(types: types)
        #expect(data.utf8 == #"{"elements":[{"tag":"number","value":4}],"version":1}"#)
        #expect(try ScenePath.restore(from: data, types: types, policy: .strict).path == ScenePath([4]))
        _ = #expect(throws: ScenePathError.self) {
            try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        }
    }

    @Test func renamedTypeIsRecoveredByRegisteringItsOldNameAsTag() throws {
        let old = ScenePathTypes([.init(BookBeforeRename.self)])
        let data = try ScenePath([BookBeforeRename(id: 1, title: "t", pages: 2)]).encoded(types: old)
        #expect(data.utf8.contains(#""tag":"BookBeforeRename""#))
        let renamed = ScenePathTypes([.init(RenamedBook.self, tag: "BookBeforeRename")])
        let path = try ScenePath.restore(from: data, types: renamed, policy: .strict).path
        #expect((path.last as? RenamedBook) == RenamedBook(id: 1, title: "t", pages: 2))
    }

    /// A renamed tag kept as an alias: the old paths restore, the next
    /// write uses the new tag, and the earlier release keeps that element
    /// aside rather than failing on it.
    @Test func anAliasReadsTheOldTagAndOnlyTheTagIsWritten() throws {
        let earlier = ScenePathTypes([.init(BookBeforeRename.self), .init(Int.self)])
        var written = ScenePath([3])
        written.append(BookBeforeRename(id: 1, title: "t", pages: 2))
        let stored = try written.encoded(types: earlier)
        let renamed = ScenePathTypes([.init(RenamedBook.self, tag: "book", aliases: ["BookBeforeRename"]), .init(Int.self)])
        #expect(renamed.tags == ["book", "int"], "an alias is not a tag")
        #expect(renamed.tag(for: RenamedBook.self) == "book")

        let path = try ScenePath.restore(from: stored, types: renamed, policy: .strict).path
        #expect(path.count == 2)
        #expect((path.last as? RenamedBook) == RenamedBook(id: 1, title: "t", pages: 2))
        let rewritten = try path.encoded(types: renamed)
        #expect(rewritten.utf8.contains(#""tag":"book""#))
        #expect(!rewritten.utf8.contains(#"BookBeforeRename"#))

        let seenByEarlier = try ScenePath.restore(from: rewritten, types: earlier, policy: .lenient)
        #expect(seenByEarlier.path == ScenePath([3]))
        #expect(seenByEarlier.dropped.map(\.tag) == ["book"])
    }

    @Test func anAliasClaimedByAnotherTypeTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = ScenePathTypes([.init(Int.self, tag: "x"), .init(String.self, aliases: ["x"])])
        }
    }

    @Test func repeatingTheSameRegistrationIsHarmless() {
        let types = ScenePathTypes([.init(Int.self), .init(Int.self), .init(Book.self, tag: "b"), .init(Book.self, tag: "b")])
        #expect(types.tags == ["b", "int"])
    }

    @Test func oneTagForTwoTypesTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = ScenePathTypes([.init(Int.self, tag: "x"), .init(String.self, tag: "x")])
        }
    }

    @Test func twoTagsForOneTypeTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = ScenePathTypes([.init(Int.self, tag: "x"), .init(Int.self, tag: "y")])
        }
    }

    @Test func emptyTagTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = ScenePathTypes([.init(Int.self, tag: "")])
        }
    }
}

private struct RenamedBook: Hashable, Codable, Sendable {
    var id: Int
    var title: String
    var pages: Int
}

extension ScenePathTypes {
    /// Every registered tag, sorted (aliases are not tags: nothing is
    /// written under them).
    var tags: [String] {
        Set(byType.values.map(\.tag)).sorted()
    }

    /// The tag a type is registered under, or `nil` if it is not registered.
    ///
    /// The lookup is by exact type: a subclass of a registered class is not
    /// registered by inheritance.
    func tag<Value>(for type: Value.Type) -> String? {
        byType[ObjectIdentifier(type)]?.tag
    }
}
