import Foundation

/// Decodes one scene's documents as they come, reading each over the one
/// before (``SceneFileBaseline``): another process's save of a 100-key
/// scene that changed one value is parsed for that value only. The result
/// is always the one a full ``SceneFile/decode(_:expectedKeys:)`` gives.
///
/// It keeps the last document it decoded, up to
/// ``StoredDocument/wholeReadBytes``: about twice the file's size in memory,
/// and only once asked to (a store keeps one from the first change another
/// process made, not from opening).
package struct SceneFileReader: Sendable {
    private var baseline: SceneFileBaseline?
    /// How many values the last successful decode parsed, when it read
    /// over a baseline (the others came from it); `nil`: it read them all.
    private(set) var parsedOverBaseline: Int?

    package init() {}

    /// - Parameter keep: whether `data` becomes the next document's baseline.
    package mutating func decode(_ data: Data, expectedKeys: Int, keep: Bool) -> Result<SceneFile, SceneFile.Problem> {
        let keep = keep && data.count <= StoredDocument.wholeReadBytes
        switch SceneFile.decode(data, expectedKeys: expectedKeys, over: baseline, recording: keep) {
        case .success(let read):
            parsedOverBaseline = read.parsedOverBaseline
            if keep {
                baseline = read.entries.map { SceneFileBaseline(document: data, entries: $0, file: read.file) }
            }
            return .success(read.file)
        case .failure(let problem):
            return .failure(problem)
        }
    }
}
