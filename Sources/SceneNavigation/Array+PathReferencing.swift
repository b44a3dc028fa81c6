import Foundation

extension Array where Element: PathReferencing {
    /// Encodes the path's references (not the values) as a typed stack.
    ///
    /// - Returns: The references as ``Swift/Array/encodedPath()`` encodes
    ///   a stack of them.
    /// - Throws: ``ScenePathError/unencodableElement(tag:position:underlying:)``
    ///   if a reference's encoding fails.
    package func encodedReferences() throws(ScenePathError) -> Data {
        try map(\.pathReference).encodedPath()
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
        let records = try PathDocument.decode(TypedRecordIn<Element.Reference>.self, from: data).map(\.result)
        // A strict restore refuses the first reference that does not decode,
        // before resolving any.
        if policy == .strict {
            for case (let position, .failure(let underlying)) in records.enumerated() {
                throw ScenePathError.undecodableElement(tag: nil, position: position, underlying: underlying)
            }
        }
        var path: [Element] = []
        var dropped: [DroppedElement] = []
        for (position, result) in records.enumerated() {
            switch result {
            case .success(let reference):
                if let element = resolve(reference) {
                    path.append(element)
                } else {
                    dropped.append(DroppedElement(position: position, tag: nil, reason: .unresolved(reference: reference)))
                }
            case .failure(let underlying):
                dropped.append(DroppedElement(position: position, tag: nil, reason: .undecodable(underlying: underlying)))
            }
        }
        return RestoredPath(path: path, dropped: dropped)
    }
}
