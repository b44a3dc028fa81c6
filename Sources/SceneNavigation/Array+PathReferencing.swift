import Foundation

extension Array where Element: PathReferencing {
    /// The references to persist for this path, in order.
    var pathReferences: [Element.Reference] {
        map(\.pathReference)
    }

    /// Encodes the path's references (not the values) as a typed stack.
    ///
    /// - Returns: The references as ``Swift/Array/encodedPath()`` encodes
    ///   a stack of them.
    /// - Throws: ``ScenePathError/unencodableElement(tag:position:underlying:)``
    ///   if a reference's encoding fails.
    package func encodedReferences() throws(ScenePathError) -> Data {
        try pathReferences.encodedPath()
    }

    /// Restores a path from the output of ``Swift/Array/encodedReferences()``:
    /// decodes the references, then resolves them against the app's data.
    ///
    /// ```swift
    /// let data = try path.encodedReferences()                       // save
    /// let restored = try [Recipe].restore(references: data, policy: .lenient) { model[$0] }
    /// path = restored.path                                          // deleted recipes are gone
    /// ```
    ///
    /// - Parameters:
    ///   - data: Encoded references.
    ///   - policy: What to do with a stored reference that no longer decodes
    ///     as `Element.Reference`. References that decode but do not resolve
    ///     are dropped under either policy, listed in
    ///     ``RestoredPath/dropped`` as ``DroppedElement/Reason/unresolved(reference:)``.
    ///   - resolve: Looks a reference up in the app's data; `nil` means the
    ///     value is gone. Called once per decoded reference, in order.
    /// - Returns: The resolved path, and the references that did not decode
    ///   (lenient only) or did not resolve, each at its stored position.
    /// - Throws: As ``Swift/Array/restore(from:policy:)``.
    package static func restore(
        references data: Data,
        policy: PathDecodingPolicy,
        resolve: (Element.Reference) -> Element?
    ) throws(ScenePathError) -> RestoredPath<[Element]> {
        let decoded = try [Element.Reference].restore(from: data, policy: policy)
        var undecodable = decoded.dropped.makeIterator()
        var nextUndecodable = undecodable.next()
        var references = decoded.path.makeIterator()
        var path: [Element] = []
        var dropped: [DroppedElement] = []
        for position in 0..<(decoded.path.count + decoded.dropped.count) {
            if let drop = nextUndecodable, drop.position == position {
                dropped.append(drop)
                nextUndecodable = undecodable.next()
            } else if let reference = references.next() {
                if let element = resolve(reference) {
                    path.append(element)
                } else {
                    dropped.append(DroppedElement(position: position, tag: nil, reason: .unresolved(reference: reference)))
                }
            }
        }
        return RestoredPath(path: path, dropped: dropped)
    }
}
