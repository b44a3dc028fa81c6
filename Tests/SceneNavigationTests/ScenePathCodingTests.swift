import Foundation
import SceneNavigation
import Testing

@Suite struct ScenePathCodingTests {
    private func mixedPath() -> ScenePath {
        var path = ScenePath()
        path.append(5)
        path.append("five")
        path.append(dune)
        path.append(Shelf.rated(stars: 4, by: "ann"))
        path.append(Shelf.recent)
        path.append(-12)
        return path
    }

    @Test func mixedPathRoundTripsEqual() throws {
        let path = mixedPath()
        let data = try path.encoded(types: testTypes)
        let strict = try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        #expect(strict == path)
        #expect(strict.hashValue == path.hashValue)
        let lenient = try ScenePath.restore(from: data, types: testTypes, policy: .lenient)
        #expect(lenient.path == path)
        #expect(lenient.dropped.isEmpty)
    }

    @Test func emptyPathRoundTrips() throws {
        let data = try ScenePath().encoded(types: testTypes)
        #expect(data.utf8 == #"{"elements":[],"version":1}"#)
        #expect(try ScenePath.restore(from: data, types: testTypes, policy: .strict).path.isEmpty)
    }

    @Test func encodingIsReadableWithSortedKeys() throws {
        var path = ScenePath([5])
        path.append(dune)
        path.append(Shelf.genre("sf/fantasy"))
        let json = try path.encoded(types: testTypes).utf8
        #expect(json == """
            {"elements":[{"tag":"int","value":5},\
            {"tag":"book","value":{"author":"Frank Herbert","id":1,"title":"Dune"}},\
            {"tag":"shelf","value":{"genre":{"_0":"sf/fantasy"}}}],"version":1}
            """)
    }

    @Test func equalPathsBuiltDifferentlyEncodeToSameBytes() throws {
        var pushedAndPopped = ScenePath()
        pushedAndPopped.append(dune)
        pushedAndPopped.append(99)
        pushedAndPopped.append("gone")
        pushedAndPopped.removeLast(2)
        pushedAndPopped.append(7)
        let direct = ScenePath([dune]).appending(7)
        #expect(pushedAndPopped == direct)
        let first = try pushedAndPopped.encoded(types: testTypes)
        #expect(try direct.encoded(types: testTypes) == first)
        #expect(try pushedAndPopped.encoded(types: testTypes) == first)
    }

    @Test func decodedPathReencodesToSameBytes() throws {
        let data = try mixedPath().encoded(types: testTypes)
        let decoded = try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        #expect(try decoded.encoded(types: testTypes) == data)
    }

    @Test func encodingUnregisteredTypeNamesTypeAndPosition() {
        var path = ScenePath([1])
        path.append(Tripwire(payload: "x"))
        let error = #expect(throws: ScenePathError.self) {
            try path.encoded(types: testTypes)
        }
        guard case .unregisteredType(let typeName, let position) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(typeName.hasSuffix("Tripwire"))
        #expect(position == 1)
    }

    @Test func unencodableElementNamesTagAndPosition() {
        let error = #expect(throws: ScenePathError.self) {
            try ScenePath([1.0, .nan]).encoded(types: ScenePathTypes([.init(Double.self)]))
        }
        guard case .unencodableElement(let tag, let position, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(tag == "double")
        #expect(position == 1)
    }

    // MARK: Unknown tags

    private let withStranger = Data("""
        {"version":1,"elements":[{"tag":"int","value":1},\
        {"tag":"tripwire","value":"boom"},{"tag":"string","value":"z"}]}
        """.utf8)

    @Test func unknownTagFailsStrictNamingPositionAndTag() {
        let error = #expect(throws: ScenePathError.self) {
            try ScenePath.restore(from: withStranger, types: testTypes, policy: .strict).path
        }
        guard case .unknownTag(let tag, let position) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(tag == "tripwire")
        #expect(position == 1)
        #expect(error?.description.contains("position 1") == true)
        #expect(error?.description.contains("\"tripwire\"") == true)
    }

    @Test func unknownTagIsDroppedAndReportedWhenLenient() throws {
        let restored = try ScenePath.restore(from: withStranger, types: testTypes, policy: .lenient)
        var expected = ScenePath([1])
        expected.append("z")
        #expect(restored.path == expected)
        #expect(restored.dropped.count == 1)
        #expect(restored.dropped.first?.position == 1)
        #expect(restored.dropped.first?.tag == "tripwire")
        guard case .unknownTag = restored.dropped.first?.reason else {
            Issue.record("unexpected reason")
            return
        }
    }

    @Test func unregisteredTypeInFileIsNeverInstantiated() throws {
        // Sanity: the tripwire does fire when the type *is* registered.
        let armed = ScenePathTypes([.init(Tripwire.self, tag: "probe")])
        let probe = try ScenePath([Tripwire(payload: "p")]).encoded(types: armed)
        tripwireDecoded.withLock { $0 = false }
        _ = try ScenePath.restore(from: probe, types: armed, policy: .strict).path
        #expect(tripwireDecoded.withLock { $0 })

        // Now the file names it under its would-be tag and type name, but
        // the registry does not: neither policy may decode it.
        tripwireDecoded.withLock { $0 = false }
        let hostile = Data("""
            {"version":1,"elements":[{"tag":"tripwire","value":"a"},\
            {"tag":"Tripwire","value":"b"},\
            {"tag":"SceneNavigationTests.Tripwire","value":"c"},\
            {"tag":"probe","value":"d"}]}
            """.utf8)
        _ = #expect(throws: ScenePathError.self) {
            try ScenePath.restore(from: hostile, types: testTypes, policy: .strict).path
        }
        let restored = try ScenePath.restore(from: hostile, types: testTypes, policy: .lenient)
        #expect(restored.path.isEmpty)
        #expect(restored.dropped.map(\.position) == [0, 1, 2, 3])
        #expect(restored.dropped.map(\.tag) == ["tripwire", "Tripwire", "SceneNavigationTests.Tripwire", "probe"])
        #expect(tripwireDecoded.withLock { $0 } == false)
    }

    // MARK: Schema changes

    private func oldBooks() throws -> Data {
        let old = ScenePathTypes([.init(Int.self), .init(BookBeforeRename.self, tag: "book")])
        var path = ScenePath([1])
        path.append(BookBeforeRename(id: 9, title: "Old", pages: 120))
        path.append(2)
        return try path.encoded(types: old)
    }

    @Test func elementThatNoLongerDecodesFailsStrict() throws {
        let data = try oldBooks()
        let error = #expect(throws: ScenePathError.self) {
            try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        }
        guard case .undecodableElement(let tag, let position, let underlying) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(tag == "book")
        #expect(position == 1)
        #expect(underlying is DecodingError)
    }

    @Test func elementThatNoLongerDecodesIsDroppedWhenLenient() throws {
        let restored = try ScenePath.restore(from: try oldBooks(), types: testTypes, policy: .lenient)
        #expect(restored.path == ScenePath([1, 2]))
        #expect(restored.dropped.map(\.position) == [1])
        #expect(restored.dropped.map(\.tag) == ["book"])
        guard case .undecodable = restored.dropped.first?.reason else {
            Issue.record("unexpected reason")
            return
        }
    }

    @Test func malformedRecordsAreElementFailuresNotCorruption() throws {
        let data = Data("""
            {"version":1,"elements":[5,null,{"value":1},{"tag":7},{"tag":"int"},{"tag":"int","value":3}]}
            """.utf8)
        let restored = try ScenePath.restore(from: data, types: testTypes, policy: .lenient)
        #expect(restored.path == ScenePath([3]))
        #expect(restored.dropped.map(\.position) == [0, 1, 2, 3, 4])
        #expect(restored.dropped.map(\.tag) == [nil, nil, nil, nil, "int"])
        let error = #expect(throws: ScenePathError.self) {
            try ScenePath.restore(from: data, types: testTypes, policy: .strict).path
        }
        guard case .undecodableElement(nil, 0, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    // MARK: Whole-document failures

    @Test(arguments: [
        "",
        "not json",
        "[]",
        #"{"elements":[]}"#,
        #"{"version":1}"#,
        #"{"version":"1","elements":[]}"#,
        #"{"version":0,"elements":[]}"#,
        #"{"version":1,"elements":{}}"#,
    ])
    func corruptDataFailsUnderBothPolicies(text: String) {
        for policy in [PathDecodingPolicy.strict, .lenient] {
            let error = #expect(throws: ScenePathError.self) {
                try ScenePath.restore(from: Data(text.utf8), types: testTypes, policy: policy)
            }
            guard case .corruptData = error else {
                Issue.record("unexpected \(String(describing: error)) for \(text)")
                continue
            }
        }
    }

    @Test func newerVersionIsRefused() {
        let data = Data(#"{"version":2,"elements":[{"tag":"int","value":1}]}"#.utf8)
        let error = #expect(throws: ScenePathError.self) {
            try ScenePath.restore(from: data, types: testTypes, policy: .lenient)
        }
        guard case .unsupportedVersion(2) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    @Test func standardTypesRoundTrip() throws {
        let types = ScenePathTypes([
            .init(Bool.self), .init(Int64.self), .init(UInt8.self), .init(Double.self),
            .init(UUID.self), .init(URL.self), .init(Date.self), .init(Data.self),
        ])
        var path = ScenePath([true])
        path.append(Int64.min)
        path.append(UInt8.max)
        path.append(0.1)
        path.append(UUID())
        let url = try #require(URL(string: "https://example.com/a/b?c=d"))
        path.append(url)
        path.append(Date(timeIntervalSinceReferenceDate: 12345.5))
        path.append(Data([0, 1, 2, 255]))
        let data = try path.encoded(types: types)
        #expect(try ScenePath.restore(from: data, types: types, policy: .strict).path == path)
        #expect(data.utf8.contains(#""https://example.com/a/b?c=d""#))
    }
}

extension ScenePath {
    fileprivate func appending(_ value: some ScenePathElement) -> ScenePath {
        var copy = self
        copy.append(value)
        return copy
    }
}
