import SceneNavigation
import Testing

@Suite struct ScenePathTests {
    @Test func newPathIsAtRoot() {
        let path = ScenePath()
        #expect(path.isEmpty)
        #expect(path.count == 0)
        #expect(path.last == nil)
    }

    @Test func appendPushesMixedTypesInOrder() {
        var path = ScenePath()
        path.append(5)
        path.append("b")
        path.append(dune)
        #expect(path.count == 3)
        #expect(!path.isEmpty)
        #expect(path.element(at: 0, as: Int.self) == 5)
        #expect(path.element(at: 1, as: String.self) == "b")
        #expect((path.last as? Book) == dune)
    }

    @Test func sequenceInitKeepsOrder() {
        let path = ScenePath([3, 1, 2])
        #expect(path.map { $0 as? Int } == [3, 1, 2])
    }

    @Test func readingAnElementAsAnotherTypeGivesNil() {
        let path = ScenePath(["a"])
        #expect((path.last as? Int) == nil)
        #expect((path[0] as? Book) == nil)
        #expect((ScenePath().last as? String) == nil)
    }

    @Test func popLastReturnsTheTopElement() {
        var path = ScenePath([1, 2])
        #expect(path.popLast() as? Int == 2)
        #expect(path == ScenePath([1]))
        #expect(path.popLast() as? Int == 1)
        #expect(path.popLast() == nil)
    }

    @Test func removeLastStepsBackOne() {
        var path = ScenePath([1, 2, 3])
        #expect(path.removeLast() == 1)
        #expect(path == ScenePath([1, 2]))
    }

    @Test func removeLastKRemovesK() {
        var path = ScenePath([1, 2, 3, 4])
        #expect(path.removeLast(3) == 3)
        #expect(path == ScenePath([1]))
        #expect(path.removeLast(0) == 0)
        #expect(path == ScenePath([1]))
    }

    @Test func removeLastMoreThanCountClampsAtRoot() {
        var path = ScenePath([1, 2])
        #expect(path.removeLast(5) == 2)
        #expect(path.isEmpty)
        #expect(path.removeLast() == 0)
        #expect(path.isEmpty)
    }

    @Test func removeLastNegativeTraps() async {
        await #expect(processExitsWith: .failure) {
            var path = ScenePath([1])
            path.removeLast(-1)
        }
    }

    @Test func removeAllPopsToRoot() {
        var path = ScenePath(["a", "b"])
        path.append(dune)
        path.removeAll()
        #expect(path.isEmpty)
        #expect(path == ScenePath())
    }

    @Test func equalityNeedsSameTypesAndValues() {
        var mixed = ScenePath()
        mixed.append(1)
        mixed.append("1")
        var built = ScenePath([1])
        built.append("1")
        #expect(mixed == built)
        #expect(mixed.hashValue == built.hashValue)
        #expect(ScenePath([1]) != ScenePath(["1"]))
        #expect(ScenePath([1]) != ScenePath([1, 1]))
        #expect(ScenePath([1, 2]) != ScenePath([2, 1]))
    }

    @Test func equalityDoesNotConflateNumericTypes() {
        // AnyHashable treats Int8(1) and 1 as equal; a path must not, because
        // they encode under different tags.
        #expect(AnyHashable(Int8(1)) == AnyHashable(1))
        #expect(ScenePath([Int8(1)]) != ScenePath([1]))
        #expect(Set([ScenePath([Int8(1)]), ScenePath([1])]).count == 2)
    }

    @Test func iteratesAsCollection() {
        var path = ScenePath([10])
        path.append("x")
        let described = path.map { String(describing: $0) }
        #expect(described == ["10", "x"])
        #expect(path.first as? Int == 10)
        #expect(path[1] as? String == "x")
        #expect(path.indices == 0..<2)
    }

    @Test func descriptionListsElements() {
        var path = ScenePath([5])
        path.append("a")
        #expect(path.description == #"ScenePath([5, "a"])"#)
    }
}
