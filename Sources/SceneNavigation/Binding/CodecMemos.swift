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

/// The last bytes a ``PathBinding`` decoded and their decoding, for a codec
/// whose decoding depends on the bytes alone
/// (``PathCodec/decodesBytesAlone``): a window that follows another
/// restores every binding of a scene on each change, and all but the
/// changed key hold the bytes they held before.
final class DecodingMemo<Path: Equatable & Sendable>: Sendable {
    private let last = Locked<(data: Data, decoded: PathCodec<Path>.Decoded)?>(nil)

    /// `codec.decode(data)`, from the memo when `data` is the one decoded last.
    func decode(_ data: Data, with codec: PathCodec<Path>) throws -> PathCodec<Path>.Decoded {
        guard codec.decodesBytesAlone else { return try codec.decode(data) }
        if let last = last.withLock({ $0 }), last.data == data { return last.decoded }
        let decoded = try codec.decode(data)
        last.withLock { $0 = (data, decoded) }
        return decoded
    }
}
