import Foundation

extension ScenePath {
    /// Restores a path from the output of ``encoded(types:)``, reporting what
    /// a lenient restore left out.
    ///
    /// Each element's tag is looked up in `types` and nowhere else; a tag no
    /// registration claims is never resolved by type name, and its value is
    /// not read.
    ///
    /// ```swift
    /// let restored = try ScenePath.restore(from: data, types: types, policy: .lenient)
    /// path = restored.path
    /// for dropped in restored.dropped { logger.notice("dropped \(dropped)") }
    /// ```
    ///
    /// - Parameters:
    ///   - data: An encoded path.
    ///   - types: The registry to resolve tags with.
    ///   - policy: What to do with an element whose tag is unknown or whose
    ///     value no longer decodes: throw (``PathDecodingPolicy/strict``) or
    ///     drop it and go on (``PathDecodingPolicy/lenient``).
    /// - Returns: The path and the dropped elements (none when strict).
    /// - Throws: ``ScenePathError/corruptData(underlying:)`` or
    ///   ``ScenePathError/unsupportedVersion(_:)`` under either policy; when
    ///   strict, ``ScenePathError/unknownTag(_:position:)`` or
    ///   ``ScenePathError/undecodableElement(tag:position:underlying:)`` for
    ///   the first element that cannot be restored.
    package static func restore(
        from data: Data,
        types: ScenePathTypes,
        policy: PathDecodingPolicy
    ) throws(ScenePathError) -> RestoredPath<ScenePath> {
        // Record by record through the registry's memo where the document
        // is laid out as written; else (or if a record is not JSON) whole.
        var outcomes = PathDocument.records(of: data).flatMap { records in
            let outcomes = records.compactMap { types.memo.outcome(of: $0, types: types) }
            return outcomes.count == records.count ? outcomes : nil
        }
        if outcomes == nil {
            outcomes = try PathDocument.decode(TaggedRecordIn.self, from: data, types: types).map(\.outcome)
        }
        let records = outcomes ?? []
        var path = ScenePath()
        path.storage.reserveCapacity(records.count)
        var dropped: [DroppedElement] = []
        for (position, outcome) in records.enumerated() {
            let drop: DroppedElement
            switch outcome {
            case .element(let element):
                path.storage.append(element)
                continue
            case .unknownTag(let tag):
                drop = DroppedElement(position: position, tag: tag, reason: .unknownTag)
            case .undecodable(let tag, let underlying):
                drop = DroppedElement(position: position, tag: tag, reason: .undecodable(underlying: underlying))
            }
            if policy == .strict, let refusal = drop.strictError {
                throw refusal
            }
            dropped.append(drop)
        }
        return RestoredPath(path: path, dropped: dropped)
    }
}
