import Foundation
import SceneStore

/// The properties every byte string keeps when read as a scene file.
///
/// * Reading never traps: ``SceneFile/decode(_:)`` and
///   ``SceneFile/peekHeader(_:)`` return for any input.
/// * A refused newer format names a version above the current one.
/// * Whatever decodes, written back with ``SceneFile/encoded()``, decodes to
///   an equal file, and writing that again gives the same bytes.
/// * The bytes do not depend on how the values dictionary is laid out in
///   memory (its insertion order, capacity or hash seed): checksums and key
///   order are functions of the keys' UTF-8 bytes.
/// * The header of a written file is read back by the fast path: the same
///   incarnation, generation and writer token, or `nil` only when one of
///   them or the scene needed escaping (then a full decode follows, which
///   is slower but right).
/// * The fast path never disagrees with a full read: whenever any input
///   decodes and ``SceneFile/peekHeader(_:)`` reads a header from it, both
///   name the same incarnation, generation and writer (a store that skips
///   decoding a version it has, or its own save, never skips one it lacks).
/// * Reading by difference (``SceneFileReader``) gives what a full reading
///   gives: the input read over its own clean encoding and the other way
///   round, and the input with one byte changed read over the input.
/// * The log layout's properties (SceneFileCheck+Log.swift).
package enum SceneFileCheck {
    package static func check(_ data: Data) throws(FuzzFailure) {
        _ = SceneFile.peekHeader(data)
        let file: SceneFile
        switch SceneFile.decode(data) {
        case .failure(.newerVersion(let version)):
            guard version > SceneFile.currentVersion else {
                throw FuzzFailure("refused as newer version \(version), which is not newer than \(SceneFile.currentVersion)")
            }
            return
        case .failure:
            return
        case .success(let decoded):
            file = decoded
            if let quick = SceneFile.peekHeader(data), quick.incarnation != file.incarnation
                || quick.generation != file.generation || quick.writerToken != file.writer.token {
                throw FuzzFailure("the quick header read \(quick), the full read \(file.incarnation.debugDescription) \(file.generation)")
            }
        }
        guard file.generation <= SceneFile.maxGeneration else {
            throw FuzzFailure("accepted generation \(file.generation) above \(SceneFile.maxGeneration)")
        }
        if let id = try? SceneID(file.scene) {
            _ = file.problem(asScene: id, limits: .init())
        }
        try checkLog(file)

        let encoded = file.encoded()
        let again: SceneFile
        switch SceneFile.decode(encoded) {
        case .failure(let problem):
            throw FuzzFailure("a decoded file, written again, does not decode: \(problem)\n\(text(encoded))")
        case .success(let decoded):
            again = decoded
        }
        guard again == file else {
            throw FuzzFailure("a decoded file, written and read again, changed:\n\(file)\nbecame\n\(again)")
        }
        guard again.encoded() == encoded else {
            throw FuzzFailure("writing a file twice gave different bytes:\n\(text(encoded))\nthen\n\(text(again.encoded()))")
        }

        var relaid = file
        relaid.values = SceneValues(minimumCapacity: 4 * file.values.count + 16)
        for (key, value) in file.values.reversed() {
            relaid.values[key] = value
        }
        guard relaid.encoded() == encoded else {
            throw FuzzFailure("the same values inserted in another order gave different bytes:\n\(text(encoded))\nthen\n\(text(relaid.encoded()))")
        }
        guard Checksum.of(relaid.values) == Checksum.of(file.values) else {
            throw FuzzFailure("the checksum depends on the order the values were inserted in")
        }

        let header = SceneFile.peekHeader(encoded)
        if let header {
            guard header.incarnation == file.incarnation, header.generation == file.generation,
                  header.writerToken == file.writer.token else {
                throw FuzzFailure("header read as \(header), file has \(file.incarnation.debugDescription) \(file.generation)")
            }
        } else if !(file.incarnation + file.scene + file.writer.token).utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            throw FuzzFailure("header of a written file not read, incarnation \(file.incarnation.debugDescription)\n\(text(encoded))")
        }
    }

    private static func text(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }
}
