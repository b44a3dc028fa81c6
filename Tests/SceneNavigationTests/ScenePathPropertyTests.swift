import Foundation
import PropertyBased
import SceneNavigation
import Testing

/// Random sequences of navigation steps, checked against a plain array.
@Suite struct ScenePathPropertyTests {
    /// A value the model array can hold; `push` puts the same value on a path.
    enum Value: Hashable {
        case int(Int)
        case string(String)
        case book(Book)
        case shelf(Shelf)

        func push(onto path: inout ScenePath) {
            switch self {
            case .int(let value): path.append(value)
            case .string(let value): path.append(value)
            case .book(let value): path.append(value)
            case .shelf(let value): path.append(value)
            }
        }

        func isStored(in path: ScenePath, at position: Int) -> Bool {
            switch self {
            case .int(let value): path.element(at: position, as: Int.self) == value
            case .string(let value): path.element(at: position, as: String.self) == value
            case .book(let value): path.element(at: position, as: Book.self) == value
            case .shelf(let value): path.element(at: position, as: Shelf.self) == value
            }
        }
    }

    /// One navigation step, decoded from a generated number so the library's
    /// integer and array shrinking gives minimal failing step lists.
    enum Step {
        case push(Value)
        case back(Int)
        case popToRoot

        init(_ seed: Int) {
            switch seed % 12 {
            case 0...3: self = .push(.int(seed - 500))
            case 4...5: self = .push(.string(String(seed, radix: 36)))
            case 6: self = .push(.book(Book(id: seed, title: "T\(seed)", author: "A")))
            case 7: self = .push(.shelf(seed.isMultiple(of: 2) ? .genre("g\(seed)") : .rated(stars: seed % 6, by: "r")))
            case 8...9: self = .back(1)
            case 10: self = .back(seed % 5)
            default: self = seed % 3 == 0 ? .popToRoot : .back(3)
            }
        }
    }

    static let steps = Gen.int(in: 0...999).array(of: 0...60)

    /// Runs `steps` on a path and on the model, checking `removeLast`'s
    /// return value on the way.
    static func run(_ seeds: [Int]) -> (path: ScenePath, model: [Value]) {
        var path = ScenePath()
        var model: [Value] = []
        for seed in seeds {
            switch Step(seed) {
            case .push(let value):
                value.push(onto: &path)
                model.append(value)
            case .back(let k):
                let expected = min(k, model.count)
                model.removeLast(expected)
                #expect(path.removeLast(k) == expected)
            case .popToRoot:
                path.removeAll()
                model.removeAll()
            }
        }
        return (path, model)
    }

    static func build(_ model: [Value]) -> ScenePath {
        var path = ScenePath()
        for value in model {
            value.push(onto: &path)
        }
        return path
    }

    @Test func pathMatchesArrayModel() async {
        await propertyCheck(count: 300, input: Self.steps) { seeds in
            let (path, model) = Self.run(seeds)
            #expect(path.count == model.count)
            #expect(path.isEmpty == model.isEmpty)
            #expect(path.indices.allSatisfy { model[$0].isStored(in: path, at: $0) })
        }
    }

    @Test func pathsWithEqualModelsAreEqualAndEncodeAlike() async {
        await propertyCheck(count: 300, input: Self.steps) { seeds in
            let (path, model) = Self.run(seeds)
            let direct = Self.build(model)
            #expect(path == direct)
            #expect(path.hashValue == direct.hashValue)
            let pathBytes = try path.encoded(types: testTypes)
            let directBytes = try direct.encoded(types: testTypes)
            #expect(pathBytes == directBytes)
        }
    }

    @Test func pathsWithDifferentModelsAreDifferent() async {
        await propertyCheck(count: 300, input: Self.steps, Self.steps) { left, right in
            let (leftPath, leftModel) = Self.run(left)
            let (rightPath, rightModel) = Self.run(right)
            #expect((leftPath == rightPath) == (leftModel == rightModel))
        }
    }

    @Test func roundTripIsEqualUnderBothPolicies() async {
        await propertyCheck(count: 300, input: Self.steps) { seeds in
            let (path, _) = Self.run(seeds)
            let data = try path.encoded(types: testTypes)
            #expect(try ScenePath.restore(from: data, types: testTypes, policy: .strict).path == path)
            let lenient = try ScenePath.restore(from: data, types: testTypes, policy: .lenient)
            #expect(lenient.path == path)
            #expect(lenient.dropped.isEmpty)
            #expect(try lenient.path.encoded(types: testTypes) == data)
        }
    }

    @Test func lenientRestoreDropsExactlyTheUnregisteredElements() async {
        // Reading with a registry that lacks "book": the path loses exactly
        // the book elements, keeps the rest in order, and says where they were.
        let withoutBooks = ScenePathTypes([.init(Int.self), .init(String.self), .init(Shelf.self, tag: "shelf")])
        await propertyCheck(count: 200, input: Self.steps) { seeds in
            let (path, model) = Self.run(seeds)
            let data = try path.encoded(types: testTypes)
            let restored = try ScenePath.restore(from: data, types: withoutBooks, policy: .lenient)
            let bookPositions = model.indices.filter {
                if case .book = model[$0] { true } else { false }
            }
            #expect(restored.dropped.map(\.position) == bookPositions)
            #expect(restored.dropped.allSatisfy { $0.tag == "book" })
            #expect(restored.path == Self.build(model.filter {
                if case .book = $0 { false } else { true }
            }))
        }
    }

    @Test func typedStackRoundTrips() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...999).array(of: 0...30)) { ids in
            let books = ids.map { Book(id: $0, title: "T\($0)", author: "A\($0 % 7)") }
            let data = try books.encodedPath()
            #expect(try [Book].restore(from: data, policy: .strict).path == books)
            #expect(try [Book](books).encodedPath() == data)
        }
    }
}
