import Foundation

/// How a ``PathBinding`` stores its path in the `Data` a scene key holds.
///
/// Make one with a factory: ``scenePath(types:policy:)`` for a type-erased
/// ``ScenePath``, ``stack(of:policy:)`` for a typed `[Element]` stack,
/// ``references(to:policy:resolve:)`` for a stack persisted by ID, and
/// ``history(_:limit:)`` for a ``NavigationHistory`` of any of them. Each
/// stores the path element by element, which is what lets a binding keep in
/// place the stored elements this process cannot restore.
///
/// A codec also encodes and decodes a path without a store, in the same
/// format:
///
/// ```swift
/// let codec = PathCodec.stack(of: Book.self)
/// let data = try codec.encode(books)
/// books = try codec.decode(data).path
/// ```
public struct PathCodec<Path: Equatable & Sendable>: Sendable {
    /// The stored form of a path.
    let encodePath: @Sendable (Path) throws -> Data
    /// The path stored data holds, and what it left out.
    let decodePath: @Sendable (Data) throws -> RestoredPath<Path>
    /// The path with no element: what a bound model shows once the key is
    /// removed or the scene discarded.
    let empty: Path
    /// Whether `decode` depends on the bytes alone (the element and
    /// type-erased factories, and a history of them), so that a binding may
    /// reuse its last decoding of the same bytes. Not for references, which
    /// resolve against the app's data, nor for a codec of one's own.
    var decodesBytesAlone = false

    /// A codec made by the factories, or of one's own (the tests' only): a
    /// ``PathBinding`` can keep the elements such a codec leaves out of a
    /// path only if it writes the factories' format and reports where they
    /// were (each ``DroppedElement/position``); otherwise it refuses to
    /// save over a stored path that `decode` did not fully restore.
    ///
    /// - Parameters:
    ///   - empty: the path with no element.
    ///   - encode: the stored form of a path.
    ///   - decode: the path stored data holds, and what it left out.
    init(
        empty: Path,
        encode: @escaping @Sendable (Path) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> RestoredPath<Path>
    ) {
        self.encodePath = encode
        self.decodePath = decode
        self.empty = empty
    }

    /// The bytes a ``PathBinding`` with this codec stores for `path`.
    ///
    /// Keys are sorted, so equal paths give the same bytes however they
    /// were built, as long as each element type encodes deterministically
    /// (a `Set`'s order is not; `0.0` and `-0.0` are equal `Double`s that
    /// encode differently).
    ///
    /// - Throws: ``ScenePathError/unregisteredType(_:position:)`` for the
    ///   first element whose type the registry does not list (nothing is
    ///   encoded); ``ScenePathError/unencodableElement(tag:position:underlying:)``
    ///   when an element's own encoding fails.
    public func encode(_ path: Path) throws -> Data {
        try encodePath(path)
    }

    /// The path `data` holds (what ``encode(_:)`` returned, here or in
    /// another process), and the stored elements left out of it.
    ///
    /// - Throws: ``ScenePathError/corruptData(underlying:)`` or
    ///   ``ScenePathError/unsupportedVersion(_:)`` under either policy; with
    ///   a strict codec, ``ScenePathError/unknownTag(_:position:)`` or
    ///   ``ScenePathError/undecodableElement(tag:position:underlying:)`` for
    ///   the first element that cannot be restored.
    public func decode(_ data: Data) throws -> RestoredPath<Path> {
        try decodePath(data)
    }
}

extension PathCodec where Path == ScenePath {
    /// A type-erased path whose element types are registered in `types`,
    /// each element stored as its registered tag and its own JSON:
    ///
    /// ```json
    /// {"elements":[{"tag":"int","value":5},{"tag":"book","value":{"title":"Dune"}}],"version":1}
    /// ```
    ///
    /// Restoring looks each tag up in `types` and nowhere else: a tag no
    /// registration claims is never resolved by type name, and its value
    /// is not read.
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
            decode: { data in try ScenePath.restore(from: data, types: types, policy: policy) })
        codec.decodesBytesAlone = true
        return codec
    }
}

extension PathCodec {
    /// A typed stack stored element by element, each as its own JSON
    /// (no tags): `{"elements":[...],"version":1}`.
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
            decode: { data in try [Element].restore(from: data, policy: policy) })
        codec.decodesBytesAlone = true
        return codec
    }

    /// A typed stack stored as references (IDs), as ``stack(of:policy:)``
    /// stores a stack of them, and resolved against the app's data when
    /// restored: elements whose reference no longer resolves are dropped
    /// (under either policy, as ``DroppedElement/Reason/unresolved(reference:)``),
    /// the others keep their order.
    ///
    /// - Parameters:
    ///   - element: the type of the stack's elements.
    ///   - policy: what a restore does with a reference that no longer
    ///     decodes; lenient by default.
    ///   - resolve: looks a reference up in the app's data; `nil` means the
    ///     value is gone. Called once per decoded reference, in order.
    public static func references<Element: PathReferencing & Equatable & Sendable>(
        to element: Element.Type,
        policy: PathDecodingPolicy = .lenient,
        resolve: @escaping @Sendable (Element.Reference) -> Element?
    ) -> Self where Path == [Element] {
        PathCodec(
            empty: [],
            encode: { path in try path.encodedReferences() },
            decode: { data in try [Element].restore(references: data, policy: policy, resolve: resolve) })
    }
}
