import Foundation
import SceneStore

/// The last path a ``PathBinding`` encoded and its bytes. A commit encodes
/// the caller's path and checks the key still holds the path it was
/// edited from; the next commit's base is usually the last commit's path,
/// so that check costs a comparison instead of a second encoding. Safe
/// because a codec's `encode` is a function of the path alone.
final class EncodingMemo<Path: Equatable & Sendable>: Sendable {
    private let last = Locked<(path: Path, data: Data)?>(nil)

    /// `codec.encode(path)`, from the memo when `path` is the one encoded last.
    func encode(_ path: Path, with codec: PathCodec<Path>) throws -> Data {
        if let last = last.withLock({ $0 }), last.path == path { return last.data }
        let data = try codec.encode(path)
        last.withLock { $0 = (path, data) }
        return data
    }
}
