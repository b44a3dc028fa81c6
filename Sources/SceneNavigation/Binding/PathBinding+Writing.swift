import Foundation
import SceneStore

extension PathBinding {
    /// Saves `path`, edited from `base` (`nil`: from what the key holds),
    /// over what the key holds now without erasing what this process cannot
    /// restore; see ``save(_:from:)``.
    /// - Returns: what the key holds afterwards, as this process restores it.
    func write(_ path: Path, from base: Path?) throws -> PathCodec<Path>.Decoded {
        let (data, decoded) = try merge(path, from: base, over: store.value(forKey: key, as: Data.self))
        try store.set(data, forKey: key)
        return try decoded ?? decoding(of: data)
    }

    /// Like ``save(_:from:)``, as one read-modify-write under the scene lock
    /// (`SceneStore.update(forKey:default:_:)`): the edit is applied to
    /// what the key holds on disk at that instant, so two processes pushing
    /// at the same moment both keep their element. Durable when it returns.
    ///
    /// - Returns: the path stored now, as this process restores it.
    /// - Throws: as ``save(_:)``, plus the store's save errors.
    @discardableResult
    public func commit(_ path: Path, from base: Path) async throws -> Path {
        try await commitDecoded(path, from: base).path
    }

    /// ``commit(_:from:)``, returning what the key holds afterwards with
    /// the elements this process could not restore listed.
    func commitDecoded(_ path: Path, from base: Path?) async throws -> PathCodec<Path>.Decoded {
        let binding = self
        // The merge's own reading of what it stored, when it has one (the
        // edit applied as is): no need to decode those bytes again.
        let merged = Locked<PathCodec<Path>.Decoded?>(nil)
        let stored: Data? = try await store.update(forKey: key, default: nil) { current in
            let (data, decoded) = try binding.merge(path, from: base, over: current)
            merged.withLock { $0 = decoded }
            return data
        }
        if let decoded = merged.withLock({ $0 }) { return decoded }
        guard let stored else { return PathCodec.Decoded(path: path, dropped: []) }
        return try decoding(of: stored)
    }

    /// The data to store for `path` edited from `base`, over `data` (what
    /// the key holds), and its decoding when it is simply `path`.
    func merge(
        _ path: Path, from base: Path?, over data: Data?
    ) throws -> (data: Data, decoded: PathCodec<Path>.Decoded?) {
        // The key holds exactly the path the caller edited (the usual case:
        // nobody else wrote it meanwhile, and it holds nothing this process
        // cannot restore): the edit is the whole answer, nothing to decode.
        // Base first: it is usually the path the memo holds.
        let holdsBase = try base.map { try encoding(of: $0) == data } ?? false
        let mine = try encoding(of: path)
        let plain = (data: mine, decoded: Optional(PathCodec.Decoded(path: path, dropped: [])))
        guard let data, !holdsBase else { return plain }
        let current: PathCodec<Path>.Decoded
        do {
            current = try decoding(of: data)
        } catch ScenePathError.corruptData(let underlying) {
            // Not a path at all: there is nothing in it to keep.
            logger.info("replacing a stored value that is not a path", metadata: [
                "scene": "\(store.id)", "key": "\(key)", "error": "\(underlying)",
            ])
            return plain
        } catch {
            throw PathBindingError.unreadableStoredPath(scene: store.id.rawValue, key: key, underlying: error)
        }

        guard let restored = current.restored, let stored = StoredParts(of: data),
              stored.elements.count == restored.count, let mineParts = StoredParts(of: mine)
        else {
            guard current.dropped.isEmpty else {
                throw PathBindingError.wouldDropElements(scene: store.id.rawValue, key: key, dropped: current.dropped)
            }
            return plain
        }
        let baseParts = try base.flatMap { try StoredParts(of: codec.encode($0)) }
        let merged = stored.merging(
            mineParts, editedFrom: baseParts,
            restored: (restored, current.forwardRestored, current.recentRestored))
        if merged == mineParts { return plain }
        return (try merged.encoded(), nil)
    }
}
