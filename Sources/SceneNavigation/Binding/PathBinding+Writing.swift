import Foundation
import SceneStore

extension PathBinding {
    /// Saves `path`, edited from `base` (`nil`: from what the key holds),
    /// over what the key holds now without erasing what this process cannot
    /// restore; see ``save(_:from:)``.
    /// - Returns: what the key holds afterwards, as this process restores it.
    func write(_ path: Path, from base: Path?) throws -> PathCodec<Path>.Decoded {
        let mine = try codec.encode(path)
        guard let data = store.value(forKey: key, as: Data.self) else {
            try store.set(mine, forKey: key)
            return PathCodec.Decoded(path: path, dropped: [])
        }
        let current: PathCodec<Path>.Decoded
        do {
            current = try codec.decode(data)
        } catch ScenePathError.corruptData(let underlying) {
            // Not a path at all: there is nothing in it to keep.
            logger.info("replacing a stored value that is not a path", metadata: [
                "scene": "\(store.id)", "key": "\(key)", "error": "\(underlying)",
            ])
            try store.set(mine, forKey: key)
            return PathCodec.Decoded(path: path, dropped: [])
        } catch {
            throw PathBindingError.unreadableStoredPath(scene: store.id.rawValue, key: key, underlying: error)
        }

        guard let restored = current.restored,
              let elements = PathDocument.storedElements(of: data), elements.count == restored.count,
              let mineElements = PathDocument.storedElements(of: mine)
        else {
            guard current.dropped.isEmpty else {
                throw PathBindingError.wouldDropElements(scene: store.id.rawValue, key: key, dropped: current.dropped)
            }
            try store.set(mine, forKey: key)
            return PathCodec.Decoded(path: path, dropped: [])
        }
        let stored = StoredPath(elements: elements, restored: restored)
        let baseElements = try base.flatMap { try PathDocument.storedElements(of: codec.encode($0)) }
        let spliced = stored.splice(mineElements, editedFrom: baseElements ?? stored.restoredElements)
        if spliced == mineElements {
            try store.set(mine, forKey: key)
            return PathCodec.Decoded(path: path, dropped: [])
        }
        let merged = try PathDocument.encode(spliced)
        try store.set(merged, forKey: key)
        return try codec.decode(merged)
    }
}
