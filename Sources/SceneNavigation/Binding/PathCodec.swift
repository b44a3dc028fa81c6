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

        /// For each stored element, in stored order, whether it is in
        /// `path`: what lets a binding write the others back in place.
        /// `nil` from a codec made with ``PathCodec/init(empty:encode:decode:)``.
        var restored: [Bool]?
        /// The same for a history's forward entries and recently viewed
        /// screens, in stored order (``StoredParts``); `nil`: all restored.
        var forwardRestored: [Bool]?
        var recentRestored: [Bool]?

        public init(path: Path, dropped: [String]) {
            self.path = path
            self.dropped = dropped
        }

        init(path: Path, dropped: [String], restored: [Bool]) {
            self.path = path
            self.dropped = dropped
            self.restored = restored
        }
    }

    public let encode: @Sendable (Path) throws -> Data
    public let decode: @Sendable (Data) throws -> Decoded
    /// The path with no element: what a bound model shows once the key is
    /// removed or the scene discarded.
    public let empty: Path?
    /// Whether `decode` depends on the bytes alone (the element and
    /// type-erased factories, and a history of them), so that a binding may
    /// reuse its last decoding of the same bytes. Not for references, which
    /// resolve against the app's data, nor for a codec of one's own.
    var decodesBytesAlone = false

    /// A codec of your own.
    ///
    /// A ``PathBinding`` can keep the elements such a codec leaves out of
    /// a path only if it writes the factories' format; otherwise it refuses
    /// to save over a stored path that `decode` did not fully restore
    /// (``PathBindingError/wouldDropElements(scene:key:dropped:)``).
    ///
    /// - Parameters:
    ///   - empty: the path with no element; when `nil`, a binding asks
    ///     `decode` for it from an empty path document.
    ///   - encode: the stored form of a path.
    ///   - decode: the path stored data holds, and what it left out.
    public init(
        empty: Path? = nil,
        encode: @escaping @Sendable (Path) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Decoded
    ) {
        self.encode = encode
        self.decode = decode
        self.empty = empty ?? (try? PathDocument.encode([StoredElement]())).flatMap { try? decode($0).path }
    }
}

extension PathCodec.Decoded {
    /// The decode of `restored` elements out of `total` stored ones, the
    /// others left out at `droppedPositions`.
    static func mask(total: Int, droppedPositions: some Sequence<Int>) -> [Bool] {
        var mask = Array(repeating: true, count: total)
        for position in droppedPositions where mask.indices.contains(position) {
            mask[position] = false
        }
        return mask
    }
}

extension PathCodec where Path == ScenePath {
    /// A type-erased path whose element types are registered in `types`.
    public static func scenePath(types: ScenePathTypes, policy: PathDecodingPolicy = .lenient) -> Self {
        var codec = PathCodec(
            empty: ScenePath(),
            encode: { path in try path.encoded(types: types) },
            decode: { data in
                let restored = try ScenePath.restore(from: data, types: types, policy: policy)
                return Decoded(
                    path: restored.path, dropped: restored.dropped.map(\.description),
                    restored: Decoded.mask(
                        total: restored.path.count + restored.dropped.count,
                        droppedPositions: restored.dropped.map(\.position)))
            })
        codec.decodesBytesAlone = true
        return codec
    }
}

extension PathCodec {
    /// A typed stack stored element by element.
    public static func stack<Element: Codable & Equatable & Sendable>(
        of element: Element.Type, policy: PathDecodingPolicy = .lenient
    ) -> Self where Path == [Element] {
        var codec = PathCodec(
            empty: [],
            encode: { path in try path.encodedPath() },
            decode: { data in
                let restored = try [Element].restore(from: data, policy: policy)
                return Decoded(
                    path: restored.path, dropped: restored.dropped.map(\.description),
                    restored: Decoded.mask(
                        total: restored.path.count + restored.dropped.count,
                        droppedPositions: restored.dropped.map(\.position)))
            })
        codec.decodesBytesAlone = true
        return codec
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
            empty: [],
            encode: { path in try path.encodedReferences() },
            decode: { data in
                let references = try [Element.Reference].restore(from: data, policy: policy)
                let undecodable = Set(references.dropped.map(\.position))
                var remaining = references.path.makeIterator()
                var path: [Element] = []
                var gone: [String] = []
                var restored: [Bool] = []
                for position in 0..<(references.path.count + references.dropped.count) {
                    guard !undecodable.contains(position), let reference = remaining.next() else {
                        restored.append(false)
                        continue
                    }
                    if let element = resolve(reference) {
                        path.append(element)
                        restored.append(true)
                    } else {
                        gone.append("no longer exists: \(reference)")
                        restored.append(false)
                    }
                }
                return Decoded(
                    path: path, dropped: references.dropped.map(\.description) + gone, restored: restored)
            })
    }
}
