import Foundation
import SceneStore

/// The last input of a pure function and its output: asked for the same
/// input again, the output comes from the memo instead of being computed.
///
/// A ``PathBinding`` keeps one per direction of its codec:
/// * encoding: a commit encodes the caller's path and checks the key still
///   holds the path it was edited from; the next commit's base is usually
///   the last commit's path, so that check costs a comparison instead of a
///   second encoding (a codec's `encode` is a function of the path alone);
/// * decoding, for a codec whose decoding depends on the bytes alone
///   (``PathCodec/decodesBytesAlone``): a window that follows another
///   restores every binding of a scene on each change, and all but the
///   changed key hold the bytes they held before.
final class OneSlotMemo<Input: Equatable & Sendable, Output: Sendable>: Sendable {
    private let last = Locked<(input: Input, output: Output)?>(nil)

    /// `compute(input)`, from the memo when `input` is the one computed last.
    func value(for input: Input, _ compute: (Input) throws -> Output) rethrows -> Output {
        if let last = last.withLock({ $0 }), last.input == input { return last.output }
        let output = try compute(input)
        last.withLock { $0 = (input, output) }
        return output
    }
}

extension PathBinding {
    /// `codec.encode(path)`, from the memo when `path` is the one encoded last.
    func encoding(of path: Path) throws -> Data {
        try encodings.value(for: path, codec.encodePath)
    }

    /// `codec.decode(data)`, from the memo when `data` is the one decoded
    /// last and the codec reads the bytes alone.
    func decoding(of data: Data) throws -> RestoredPath<Path> {
        guard codec.decodesBytesAlone else { return try codec.decodePath(data) }
        return try decodings.value(for: data, codec.decodePath)
    }
}
