import Foundation

extension PathCodec {
    /// A ``NavigationHistory`` stored under one key: its path as `path`
    /// stores it, and its forward entries and recently viewed screens in the
    /// same element format, beside the path:
    ///
    /// ```json
    /// {"elements":[...],"forward":[...],"recent":[...],"version":1}
    /// ```
    ///
    /// ```swift
    /// let binding = PathBinding(store: store, key: "books",
    ///                           codec: .history(.stack(of: Book.self)))
    /// ```
    ///
    /// A path stored without history (by an older version, or a plain
    /// ``PathBinding``) restores with no forward entry; a history with
    /// neither list is stored exactly as its path. Elements of either list
    /// that `path` cannot restore (a tag no longer registered) are left out
    /// of the restored history, listed in ``RestoredPath/dropped`` (with
    /// their ``DroppedElement/list``), and kept in the store by a binding's
    /// saves, in place, like path elements.
    ///
    /// - Parameters:
    ///   - path: how each element is stored: ``scenePath(types:policy:)``,
    ///     ``stack(of:policy:)`` or ``references(to:policy:resolve:)``.
    ///   - limit: as in ``NavigationHistory/init(_:limit:)``: how many
    ///     forward entries and recently viewed screens it keeps.
    public static func history<Steps>(
        _ path: PathCodec<Steps>, limit: Int = 50
    ) -> Self where Path == NavigationHistory<Steps>, Steps: Sendable {
        var codec = PathCodec(
            empty: NavigationHistory(limit: limit),
            encode: { history in
                let documents = try (path.encode(history.path), path.encode(history.forwardStack), path.encode(history.recentStack))
                // Every path codec comes from a factory, which writes each
                // document as PathDocument does.
                guard let joined = HistoryDocument.joined(path: documents.0, forward: documents.1, recent: documents.2)
                else {
                    throw ScenePathError.unencodableElement(
                        tag: nil, position: nil, underlying: HistoryCodecError.notAPathDocument)
                }
                return joined
            },
            decode: { data in
                // A document laid out as this package writes it: each list
                // cut from the bytes and parsed once, alone. Any other
                // layout (`nil`): StoredParts reads its lists.
                let cut = HistoryDocument.lists(of: data)
                let whole = try path.decode(cut?.elements ?? data)
                let lists = cut.map { Optional((forward: $0.forward, recent: $0.recent)) }
                    ?? StoredParts(of: data).map { parts in
                        (forward: parts.forward.isEmpty ? nil : try? PathDocument.encode(parts.forward),
                         recent: parts.recent.isEmpty ? nil : try? PathDocument.encode(parts.recent))
                    }
                guard let lists, lists.forward != nil || lists.recent != nil else {
                    return RestoredPath(
                        path: NavigationHistory(path: whole.path, forwardStack: Steps(), recentStack: Steps(), limit: limit),
                        dropped: whole.dropped)
                }
                let forward = try path.decode(lists.forward ?? PathDocument.encode([StoredElement]()))
                let recent = try path.decode(lists.recent ?? PathDocument.encode([StoredElement]()))
                return RestoredPath(
                    path: NavigationHistory(
                        path: whole.path, forwardStack: forward.path, recentStack: recent.path, limit: limit),
                    dropped: whole.dropped + forward.dropped.map { $0.found(in: .forward) }
                        + recent.dropped.map { $0.found(in: .recentlyViewed) })
            })
        codec.decodesBytesAlone = path.decodesBytesAlone
        return codec
    }
}

/// A path codec that does not write path documents as the factories do
/// cannot be the element format of a history.
enum HistoryCodecError: Error, CustomStringConvertible {
    case notAPathDocument

    var description: String { "the path codec does not write path documents" }
}
