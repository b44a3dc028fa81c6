import Foundation
import SceneStore

extension PathBinding {
    /// Sets `path`, edited from `base` (`nil`: from what the key holds),
    /// over what the key holds in the store's memory now, without erasing
    /// what this process cannot restore: ``commit(_:from:)`` without the
    /// scene lock, for a bound model's edit that a commit could not get
    /// through (the store's next save writes it).
    /// - Returns: what the key holds afterwards, as this process restores it.
    func write(_ path: Path, from base: Path?) throws -> RestoredPath<Path> {
        let (data, decoded) = try merge(path, from: base, over: store.value(forKey: key, as: Data.self))
        try store.set(data, forKey: key)
        return try decoded ?? decoding(of: data)
    }

    /// Stores the edit that turned `base` into `path`, applied to what the
    /// key holds on disk, as one read-modify-write under the scene lock
    /// (`SceneStore.update(forKey:default:_:)`), and returns the path the
    /// key then holds. Durable when it returns.
    ///
    /// The result is `path` unless the key changed since the caller read
    /// `base`: when the caller only pushed onto `base` and another process
    /// pushed onto it too, their elements stay and the caller's go on top
    /// (two windows pushing at the same moment both keep their screen). The
    /// stored elements this process cannot restore stay in place as long as
    /// the elements under them stay.
    ///
    /// - Parameters:
    ///   - path: the caller's path after the edit.
    ///   - base: the path the caller edited (what it last restored,
    ///     committed or received).
    /// - Returns: the path stored now, as this process restores it; show it.
    /// - Throws: the ``ScenePathError`` that reading the stored path met
    ///   when the key holds a path this process cannot read (a newer format
    ///   version, or an element a strict codec refuses): nothing is
    ///   written, as saving would erase it; the codec's encoding error; the
    ///   store's limit and save errors.
    @discardableResult
    public func commit(_ path: Path, from base: Path) async throws -> Path {
        try await commitDecoded(path, from: base).path
    }

    /// ``commit(_:from:)``, returning what the key holds afterwards with
    /// the elements this process could not restore listed.
    func commitDecoded(_ path: Path, from base: Path?) async throws -> RestoredPath<Path> {
        let binding = self
        // The merge's own reading of what it stored, when it has one (the
        // edit applied as is): no need to decode those bytes again.
        let merged = Locked<RestoredPath<Path>?>(nil)
        let stored: Data? = try await store.update(forKey: key, default: nil) { current in
            let (data, decoded) = try binding.merge(path, from: base, over: current)
            merged.withLock { $0 = decoded }
            return data
        }
        if let decoded = merged.withLock({ $0 }) { return decoded }
        guard let stored else { return RestoredPath(path: path, dropped: []) }
        return try decoding(of: stored)
    }

    /// The data to store for `path` edited from `base`, over `data` (what
    /// the key holds), and its decoding when it is simply `path`.
    func merge(
        _ path: Path, from base: Path?, over data: Data?
    ) throws -> (data: Data, decoded: RestoredPath<Path>?) {
        // The key holds exactly the path the caller edited (the usual case:
        // nobody else wrote it meanwhile, and it holds nothing this process
        // cannot restore): the edit is the whole answer, nothing to decode.
        // Base first: it is usually the path the memo holds.
        let holdsBase = try base.map { try encoding(of: $0) == data } ?? false
        let mine = try encoding(of: path)
        let plain = (data: mine, decoded: Optional(RestoredPath(path: path, dropped: [])))
        guard let data, !holdsBase else { return plain }
        let current: RestoredPath<Path>
        do {
            current = try decoding(of: data)
        } catch ScenePathError.corruptData(let underlying) {
            // Not a path at all: there is nothing in it to keep.
            logger.info("replacing a stored value that is not a path", metadata: [
                "scene": "\(store.id)", "key": "\(key)", "error": "\(underlying)",
            ])
            return plain
        }

        guard let stored = StoredParts(of: data), let mineParts = StoredParts(of: mine) else {
            guard current.dropped.isEmpty else {
                throw ElementsLeftOut(dropped: current.dropped)
            }
            return plain
        }
        // Each stored element of a list was restored unless dropped.
        func restored(_ count: Int, in list: DroppedElement.List) -> [Bool] {
            var mask = Array(repeating: true, count: count)
            for drop in current.dropped where drop.list == list && mask.indices.contains(drop.position) {
                mask[drop.position] = false
            }
            return mask
        }
        let baseParts = try base.flatMap { try StoredParts(of: codec.encode($0)) }
        let merged = stored.merging(
            mineParts, editedFrom: baseParts,
            restored: (restored(stored.elements.count, in: .path), restored(stored.forward.count, in: .forward),
                       restored(stored.recent.count, in: .recentlyViewed)))
        if merged == mineParts { return plain }
        return (try merged.encoded(), nil)
    }
}

/// Why a binding whose codec has no element-by-element form (a codec of
/// one's own) refuses to save over a path it did not fully restore.
struct ElementsLeftOut: Error, CustomStringConvertible {
    var dropped: [DroppedElement]

    var description: String {
        "not saving over a stored path: it would drop \(dropped.count) element(s) that the codec cannot write back ("
            + dropped.map(\.description).joined(separator: "; ") + ")"
    }
}
