import Foundation

extension Array where Element: PathReferencing {
    /// The references to persist for this path, in order.
    public var pathReferences: [Element.Reference] {
        map(\.pathReference)
    }

    /// Encodes the path's references (not the values) as a typed stack.
    ///
    /// - Returns: `pathReferences.encodedPath()`.
    /// - Throws: ``ScenePathError/unencodableElement(tag:position:underlying:)``
    ///   if a reference's encoding fails.
    public func encodedReferences() throws(ScenePathError) -> Data {
        try pathReferences.encodedPath()
    }

    /// Resolves references against the app's data, dropping the ones that no
    /// longer resolve and keeping the rest in order.
    ///
    /// - Parameters:
    ///   - references: Saved references, root first.
    ///   - resolve: Looks a reference up in the app's data; `nil` means the
    ///     value is gone. Called once per reference, in order.
    /// - Returns: The resolved path and the references that did not resolve.
    public static func resolve(
        _ references: some Sequence<Element.Reference>,
        using resolve: (Element.Reference) -> Element?
    ) -> ResolvedPath<Element> {
        var path: [Element] = []
        var unresolved: [Element.Reference] = []
        for reference in references {
            if let element = resolve(reference) {
                path.append(element)
            } else {
                unresolved.append(reference)
            }
        }
        return ResolvedPath(path: path, unresolved: unresolved, dropped: [])
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
    ///     are always dropped and listed in ``ResolvedPath/unresolved``.
    ///   - resolve: Looks a reference up in the app's data; `nil` means the
    ///     value is gone.
    /// - Returns: The resolved path, the unresolved references, and the
    ///   references that did not decode (lenient only).
    /// - Throws: As ``Swift/Array/restore(from:policy:)``.
    public static func restore(
        references data: Data,
        policy: PathDecodingPolicy,
        resolve: (Element.Reference) -> Element?
    ) throws(ScenePathError) -> ResolvedPath<Element> {
        let decoded = try [Element.Reference].restore(from: data, policy: policy)
        var resolved = Self.resolve(decoded.path, using: resolve)
        resolved.dropped = decoded.dropped
        return resolved
    }
}
