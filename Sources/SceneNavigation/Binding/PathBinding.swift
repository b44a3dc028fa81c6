import Foundation
import Logging
import SceneStore

/// Keeps one navigation path in one key of a `SceneStore`, as `Data`:
/// restore once at start, commit every change, follow changes made by other
/// processes.
///
/// ```swift
/// let binding = PathBinding(store: store, key: "books.path", codec: .stack(of: Book.self))
/// var path = binding.restore()?.path ?? []               // once, at launch
/// let before = path
/// path.append(book)
/// path = try await binding.commit(path, from: before)    // on every change
/// for await restored in binding.externalChanges() { apply(restored.path) }
/// ```
///
/// For an `@Observable` model, ``PathBinding/bind(_:on:)`` does all three.
///
/// Committing is lossless towards other processes: elements of the stored
/// path that this process cannot restore (a tag its registry lacks, a value
/// that no longer decodes, a reference its data lacks) are written back
/// where they were, for as long as the elements under them stay on the
/// path. Only ``replace(with:)`` drops them, on purpose.
///
/// Logs go to the store's logger (the registry's configuration).
public struct PathBinding<Path: Equatable & Sendable>: Sendable {
    let store: SceneStore
    let key: String
    let codec: PathCodec<Path>
    let encodings = OneSlotMemo<Path, Data>()
    let decodings = OneSlotMemo<Data, RestoredPath<Path>>()

    /// A binding of `key` in `store`.
    ///
    /// - Parameters:
    ///   - store: the scene that holds the path.
    ///   - key: the key the path is stored under, as `Data`.
    ///   - codec: how the path is stored: ``PathCodec/scenePath(types:policy:)``,
    ///     ``PathCodec/stack(of:policy:)``, ``PathCodec/references(to:policy:resolve:)``
    ///     or ``PathCodec/history(_:limit:)``.
    public init(store: SceneStore, key: String, codec: PathCodec<Path>) {
        self.store = store
        self.key = key
        self.codec = codec
    }

    var logger: Logger { store.logger }

    /// The path stored now, or `nil` when the key holds none or holds data
    /// that no longer decodes at all (logged). Elements that were left out
    /// are listed in ``RestoredPath/dropped``; committing keeps them in the
    /// store.
    public func restore() -> RestoredPath<Path>? {
        guard let data = store.value(forKey: key, as: Data.self) else { return nil }
        return decode(data)
    }

    /// Stores exactly `path`, dropping whatever the key held that this
    /// process could not restore. Use it only when those elements are gone
    /// for every process (an item deleted from data all processes share).
    /// Like `SceneStore.set(_:forKey:)`, it writes to the store's memory;
    /// the store saves it.
    ///
    /// - Throws: the codec's encoding error, or the store's limit errors.
    public func replace(with path: Path) throws {
        try store.set(codec.encode(path), forKey: key)
    }

    /// The path `data` holds, or `nil` (logged) when it does not decode.
    func decode(_ data: Data) -> RestoredPath<Path>? {
        do {
            return try decoding(of: data)
        } catch {
            logger.info("stored path no longer decodes; ignoring it", metadata: [
                "scene": "\(store.id)", "key": "\(key)", "error": "\(error)",
            ])
            return nil
        }
    }
}
