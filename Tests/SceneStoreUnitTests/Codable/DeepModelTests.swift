import Foundation
import SceneStore
import SceneStoreTesting
import Testing

/// A model whose encoding nests `depth` arrays, one inside the next, as a
/// tree or a linked list of an app's own types does.
private struct Nest: Codable, Sendable, Equatable {
    var depth: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 0 { try container.encode(Nest(depth: depth - 1)) }
    }

    init(depth: Int) { self.depth = depth }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        depth = container.isAtEnd ? 0 : try container.decode(Nest.self).depth + 1
    }
}

extension SceneKey where Value == Nest {
    fileprivate static var nest: Self { .init("nest", tag: "nest", default: Nest(depth: 0)) }
}

/// A model nested deeper than the encoder can finish gets a typed error,
/// not a stack overflow (which killed the process at 10,000 levels).
@Suite struct DeepModelTests {
    @Test(arguments: [513, 10_000, 100_000])
    func aModelTooDeepToEncodeIsRefusedWithATypedError(depth: Int) async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(Nest(depth: 3), for: .nest)
        #expect {
            try store.set(Nest(depth: depth), for: .nest)
        } throws: { error in
            guard case .unencodableModel(key: "nest", tag: "nest", let reason)? = error as? SceneStoreError else { return false }
            return reason.contains("512")
        }
        #expect(try store.value(for: .nest) == Nest(depth: 3), "nothing was written")
        await fixture.tearDown()
    }

    @Test func aModelAsDeepAsTheLimitIsStored() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        // The document wraps the model in one object: 510 levels of the
        // model, the document's and the limit's last.
        try store.set(Nest(depth: 500), for: .nest)
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(try relaunched.value(for: .nest) == Nest(depth: 500))
        await fixture.tearDown()
    }
}
