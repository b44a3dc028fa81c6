import Foundation

/// How a path travels to and from the `Data` a scene key holds.
///
/// Use the factories: ``scenePath(types:policy:)`` for a type-erased
/// ``ScenePath``, ``stack(of:policy:)`` for a typed `[Element]` stack, and
/// ``references(to:policy:resolve:)`` for a stack persisted by ID.
public struct PathCodec<Path: Equatable & Sendable>: Sendable {
    /// What decoding stored data gave: the path, and a description of each
    /// element left out (unknown tag, no longer decodes, no longer exists).
    public struct Decoded: Sendable {
        public var path: Path
        public var dropped: [String]

        public init(path: Path, dropped: [String]) {
            self.path = path
            self.dropped = dropped
        }
    }

    public let encode: @Sendable (Path) throws -> Data
    public let decode: @Sendable (Data) throws -> Decoded

    public init(
        encode: @escaping @Sendable (Path) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Decoded
    ) {
        self.encode = encode
        self.decode = decode
    }
}

extension PathCodec where Path == ScenePath {
    /// A type-erased path whose element types are registered in `types`.
    public static func scenePath(types: ScenePathTypes, policy: PathDecodingPolicy = .lenient) -> Self {
        PathCodec(
            encode: { path in try path.encoded(types: types) },
            decode: { data in
                let restored = try ScenePath.restore(from: data, types: types, policy: policy)
                return Decoded(path: restored.path, dropped: restored.dropped.map(\.description))
            })
    }
}

extension PathCodec {
    /// A typed stack stored element by element.
    public static func stack<Element: Codable & Equatable & Sendable>(
        of element: Element.Type, policy: PathDecodingPolicy = .lenient
    ) -> Self where Path == [Element] {
        PathCodec(
            encode: { path in try path.encodedPath() },
            decode: { data in
                let restored = try [Element].restore(from: data, policy: policy)
                return Decoded(path: restored.path, dropped: restored.dropped.map(\.description))
            })
    }

    /// A typed stack stored as references (IDs) and resolved against the
    /// app's data when restored: elements whose reference no longer
    /// resolves are dropped, the others keep their order.
    public static func references<Element: PathReferencing & Equatable & Sendable>(
        to element: Element.Type,
        policy: PathDecodingPolicy = .lenient,
        resolve: @escaping @Sendable (Element.Reference) -> Element?
    ) -> Self where Path == [Element] {
        PathCodec(
            encode: { path in try path.encodedReferences() },
            decode: { data in
                let resolved = try [Element].restore(references: data, policy: policy, resolve: resolve)
                let gone = resolved.unresolved.map { "no longer exists: \($0)" }
                return Decoded(path: resolved.path, dropped: resolved.dropped.map(\.description) + gone)
            })
    }
}
