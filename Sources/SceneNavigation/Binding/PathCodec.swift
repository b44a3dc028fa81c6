import Foundation

/// How a ``PathBinding`` stores its path in the `Data` a scene key holds.
///
/// Make one with a factory: ``scenePath(types:policy:)`` for a type-erased
/// ``ScenePath``, ``stack(of:policy:)`` for a typed `[Element]` stack,
/// ``references(to:policy:resolve:)`` for a stack persisted by ID, and
/// ``history(_:limit:)`` for a ``NavigationHistory`` of any of them. Each
/// stores the path element by element, which is what lets a binding keep in
/// place the stored elements this process cannot restore.
public struct PathCodec<Path: Equatable & Sendable>: Sendable {
    /// The stored form of a path.
    let encode: @Sendable (Path) throws -> Data
    /// The path stored data holds, and what it left out.
    let decode: @Sendable (Data) throws -> RestoredPath<Path>
    /// The path with no element: what a bound model shows once the key is
    /// removed or the scene discarded.
    let empty: Path?
    /// Whether `decode` depends on the bytes alone (the element and
    /// type-erased factories, and a history of them), so that a binding may
    /// reuse its last decoding of the same bytes. Not for references, which
    /// resolve against the app's data, nor for a codec of one's own.
    var decodesBytesAlone = false

    /// A codec of one's own (the tests' only): a ``PathBinding`` can keep
    /// the elements such a codec leaves out of a path only if it writes the
    /// factories' format and reports where they were
    /// (``RestoredPath/restored``); otherwise it refuses to save over a
    /// stored path that `decode` did not fully restore.
    ///
    /// - Parameters:
    ///   - empty: the path with no element; when `nil`, a binding asks
    ///     `decode` for it from an empty path document.
    ///   - encode: the stored form of a path.
    ///   - decode: the path stored data holds, and what it left out.
    init(
        empty: Path? = nil,
        encode: @escaping @Sendable (Path) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> RestoredPath<Path>
    ) {
        self.encode = encode
        self.decode = decode
        self.empty = empty ?? (try? PathDocument.encode([StoredElement]())).flatMap { try? decode($0).path }
    }
}

extension PathCodec where Path == ScenePath {
    /// A type-erased path whose element types are registered in `types`,
    /// stored as ``ScenePath/encoded(types:)`` encodes it.
    ///
    /// - Parameters:
    ///   - types: the registry of the path's element types.
    ///   - policy: what a restore does with an element it cannot bring
    ///     back; lenient by default, so that one unknown element does not
    ///     cost the whole path.
    public static func scenePath(types: ScenePathTypes, policy: PathDecodingPolicy = .lenient) -> Self {
        var codec = PathCodec(
            empty: ScenePath(),
            encode: { path in try path.encoded(types: types) },
            decode: { data in
                let restored = try ScenePath.restore(from: data, types: types, policy: policy)
                return RestoredPath(
                    path: restored.path, dropped: restored.dropped, total: restored.path.count + restored.dropped.count)
            })
        codec.decodesBytesAlone = true
        return codec
    }
}

extension PathCodec {
    /// A typed stack stored element by element, as
    /// ``Swift/Array/encodedPath()`` encodes it.
    ///
    /// - Parameters:
    ///   - element: the type of the stack's elements.
    ///   - policy: what a restore does with an element that no longer
    ///     decodes; lenient by default.
    public static func stack<Element: Codable & Equatable & Sendable>(
        of element: Element.Type, policy: PathDecodingPolicy = .lenient
    ) -> Self where Path == [Element] {
        var codec = PathCodec(
            empty: [],
            encode: { path in try path.encodedPath() },
            decode: { data in
                let restored = try [Element].restore(from: data, policy: policy)
                return RestoredPath(
                    path: restored.path, dropped: restored.dropped, total: restored.path.count + restored.dropped.count)
            })
        codec.decodesBytesAlone = true
        return codec
    }

    /// A typed stack stored as references (IDs), as
    /// ``Swift/Array/encodedReferences()`` encodes it, and resolved against
    /// the app's data when restored: elements whose reference no longer
    /// resolves are dropped, the others keep their order.
    ///
    /// - Parameters:
    ///   - element: the type of the stack's elements.
    ///   - policy: what a restore does with a reference that no longer
    ///     decodes; lenient by default.
    ///   - resolve: looks a reference up in the app's data; `nil` means the
    ///     value is gone.
    public static func references<Element: PathReferencing & Equatable & Sendable>(
        to element: Element.Type,
        policy: PathDecodingPolicy = .lenient,
        resolve: @escaping @Sendable (Element.Reference) -> Element?
    ) -> Self where Path == [Element] {
        PathCodec(
            empty: [],
            encode: { path in try path.encodedReferences() },
            decode: { data in
                let restored = try [Element].restore(references: data, policy: policy, resolve: resolve)
                return RestoredPath(
                    path: restored.path, dropped: restored.dropped, total: restored.path.count + restored.dropped.count)
            })
    }
}
