import Foundation
import Logging
import SceneStore

/// Keeps one navigation path in one key of a `SceneStore`, as
/// `Data`: restore once at start, save on every change (the store coalesces
/// the writes), follow changes made by other processes.
///
/// ```swift
/// let binding = PathBinding(store: store, key: "books.path", codec: .stack(of: Book.self))
/// var path = binding.restore()?.path ?? []       // once, at launch
/// let before = path
/// path.append(book)
/// path = try binding.save(path, from: before)    // on every change
/// for await restored in binding.externalChanges() { apply(restored.path) }
/// ```
///
/// For an `@Observable` model, ``PathBinding/bind(_:on:)`` does all three.
///
/// Saving is lossless towards other processes: elements of the stored path
/// that this process cannot restore (a tag its registry lacks, a value that
/// no longer decodes, a reference its data lacks) are written back where
/// they were, for as long as the elements under them stay on the path.
/// Only ``replace(with:)`` drops them, on purpose.
///
/// Logs go to the store's logger (the registry's configuration).
public struct PathBinding<Path: Equatable & Sendable>: Sendable {
    public let store: SceneStore
    public let key: String
    public let codec: PathCodec<Path>
    let encodings = OneSlotMemo<Path, Data>()
    let decodings = OneSlotMemo<Data, PathCodec<Path>.Decoded>()

    public init(store: SceneStore, key: String, codec: PathCodec<Path>) {
        self.store = store
        self.key = key
        self.codec = codec
    }

    var logger: Logger { store.logger }

    /// The path stored now, or `nil` when the key holds none or holds data
    /// that no longer decodes at all (logged). Elements that were left out
    /// are listed in the result; saving keeps them in the store.
    public func restore() -> PathCodec<Path>.Decoded? {
        guard let data = store.value(forKey: key, as: Data.self) else { return nil }
        return decode(data)
    }

    /// Stores `path` as the new state of the path the key holds now (as
    /// ``save(_:from:)`` with that path as the base): the stored elements
    /// this process cannot restore stay in place.
    ///
    /// - Throws: ``PathBindingError`` when saving would erase what another
    ///   process stored (nothing is written); the codec's encoding error;
    ///   the store's limit errors.
    public func save(_ path: Path) throws {
        _ = try write(path, from: nil)
    }

    /// Stores the edit that turned `base` into `path`, applied to what the
    /// key holds now, and returns the path the key then holds.
    ///
    /// The result is `path` unless the key changed since the caller read
    /// `base`: when the caller only pushed onto `base` and another process
    /// pushed onto it too, their elements stay and the caller's go on top
    /// (two windows pushing at the same time both keep their screen). The
    /// stored elements this process cannot restore stay in place as long as
    /// the elements under them stay.
    ///
    /// - Parameters:
    ///   - path: the caller's path after the edit.
    ///   - base: the path the caller edited (what it last restored, saved
    ///     or received).
    /// - Returns: the path stored now, as this process restores it; show it.
    /// - Throws: as ``save(_:)``.
    @discardableResult
    public func save(_ path: Path, from base: Path) throws -> Path {
        try write(path, from: base).path
    }

    /// Stores exactly `path`, dropping whatever the key held that this
    /// process could not restore. Use it only when those elements are gone
    /// for every process (an item deleted from data all processes share).
    /// - Throws: the codec's encoding error, or the store's limit errors.
    public func replace(with path: Path) throws {
        try store.set(codec.encode(path), forKey: key)
    }

    /// Removes the stored path.
    public func clear() {
        store.removeValue(forKey: key)
    }

    /// The path with no element, if the codec knows it.
    var emptyPath: Path? { codec.empty }

    /// The path `data` holds, or `nil` (logged) when it does not decode.
    func decode(_ data: Data) -> PathCodec<Path>.Decoded? {
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
