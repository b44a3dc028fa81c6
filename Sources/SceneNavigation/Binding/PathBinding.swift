import Foundation
import Logging
import SceneStore

/// Keeps one navigation path in one key of a ``SceneStore/SceneStore``, as
/// `Data`: restore once at start, save on every change (the store coalesces
/// the writes), follow changes made by other processes.
///
/// ```swift
/// let binding = PathBinding(store: store, key: "books.path", codec: .stack(of: Book.self))
/// var path = binding.restore()?.path ?? []       // once, at launch
/// path.append(book); try binding.save(path)      // on every change
/// for await path in binding.externalChanges() { apply(path) }
/// ```
///
/// For an `@Observable` model, ``PathBinding/bind(_:on:)`` does all three.
public struct PathBinding<Path: Equatable & Sendable>: Sendable {
    public let store: SceneStore
    public let key: String
    public let codec: PathCodec<Path>

    public init(store: SceneStore, key: String, codec: PathCodec<Path>) {
        self.store = store
        self.key = key
        self.codec = codec
    }

    /// The path stored now, or `nil` when the key holds none or holds data
    /// that no longer decodes at all (logged). Elements that were dropped
    /// are listed in the result.
    public func restore() -> PathCodec<Path>.Decoded? {
        guard let data = store.value(forKey: key, as: Data.self) else { return nil }
        return decode(data)
    }

    /// Stores `path` (nothing is written when it encodes to what the key
    /// holds already).
    /// - Throws: the codec's encoding error, or the store's limit errors.
    public func save(_ path: Path) throws {
        try store.set(codec.encode(path), forKey: key)
    }

    /// Removes the stored path.
    public func clear() {
        store.removeValue(forKey: key)
    }

    /// Each path another process stores under the key, decoded; a removed
    /// key or a discarded scene reads as `empty`. Finishes with the store's
    /// streams.
    public func externalChanges(empty: Path) -> AsyncStream<PathCodec<Path>.Decoded> {
        let changes = store.changes()
        let key = self.key
        return AsyncStream { continuation in
            let task = Task {
                for await change in changes where change.key == key {
                    guard case .external = change.origin else { continue }
                    guard case .data(let data)? = change.newValue else {
                        continuation.yield(PathCodec.Decoded(path: empty, dropped: []))
                        continue
                    }
                    if let decoded = decode(data) { continuation.yield(decoded) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func decode(_ data: Data) -> PathCodec<Path>.Decoded? {
        do {
            return try codec.decode(data)
        } catch {
            Logger(label: "SceneNavigation").warning("stored path no longer decodes; ignoring it", metadata: [
                "scene": "\(store.id)", "key": "\(key)", "error": "\(error)",
            ])
            return nil
        }
    }
}
