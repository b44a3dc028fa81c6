import Foundation

// A typed stack (every screen shows the same kind of value) is a plain array.
// These helpers give it the same versioned, deterministic JSON form as a
// `ScenePath`, without tags: `{"elements":[...],"version":1}`.

extension Array where Element: Encodable {
    /// Encodes the stack as versioned JSON with sorted keys: equal stacks give
    /// the same bytes, as long as `Element` encodes deterministically.
    ///
    /// - Returns: The encoded stack, ready for a scene store's `Data` value.
    /// - Throws: ``ScenePathError/unencodableElement(tag:position:underlying:)``
    ///   naming the first element whose encoding fails.
    package func encodedPath() throws(ScenePathError) -> Data {
        try PathDocument.encode(enumerated().map { TypedRecordOut(position: $0.offset, value: $0.element) })
    }
}

extension Array where Element: Decodable {
    /// Restores a stack from the output of ``Swift/Array/encodedPath()``.
    ///
    /// ```swift
    /// let restored = try [Book].restore(from: data, policy: .lenient)
    /// books = restored.path
    /// ```
    ///
    /// - Parameters:
    ///   - data: An encoded stack.
    ///   - policy: What to do with an element that no longer decodes as
    ///     `Element`: throw, or drop it and keep the rest in order.
    /// - Returns: The stack and the dropped elements (none when strict; their
    ///   ``DroppedElement/tag`` is always `nil`).
    /// - Throws: ``ScenePathError/corruptData(underlying:)`` or
    ///   ``ScenePathError/unsupportedVersion(_:)`` under either policy; when
    ///   strict, ``ScenePathError/undecodableElement(tag:position:underlying:)``
    ///   for the first element that does not decode.
    package static func restore(from data: Data, policy: PathDecodingPolicy) throws(ScenePathError) -> RestoredPath<[Element]> {
        let records = try PathDocument.decode(TypedRecordIn<Element>.self, from: data)
        var elements: [Element] = []
        elements.reserveCapacity(records.count)
        var dropped: [DroppedElement] = []
        for (position, record) in records.enumerated() {
            switch record.result {
            case .success(let element):
                elements.append(element)
            case .failure(let underlying):
                let drop = DroppedElement(position: position, tag: nil, reason: .undecodable(underlying: underlying))
                if policy == .strict, let refusal = drop.strictError {
                    throw refusal
                }
                dropped.append(drop)
            }
        }
        return RestoredPath(path: elements, dropped: dropped)
    }
}
