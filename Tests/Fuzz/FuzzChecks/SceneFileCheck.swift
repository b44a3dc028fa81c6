import Foundation
import SceneStore

/// The properties every byte string keeps when read as a scene file.
///
/// * Reading never traps: ``SceneFile/decode(_:)`` and
///   ``SceneFile/peekVersion(_:)`` return for any input.
/// * A refused newer format names a version above the current one.
/// * Whatever decodes, written back with ``SceneFile/encoded()``, decodes to
///   an equal file, and writing that again gives the same bytes.
/// * The bytes do not depend on how the values are laid out in memory
///   (their insertion order, capacity): key order is a function of the
///   keys' UTF-8 bytes.
/// * The version of a written file is read back by the fast path
///   (``SceneFile/peekVersion(_:)``), which never disagrees with a full
///   read: whenever any input decodes and the fast path reads a version
///   from it, both name the same incarnation and generation (a store that
///   skips decoding a version it has never skips one it lacks).
/// * Reading by difference (``SceneFileReader``) gives what a full reading
///   gives: the input read over its own clean encoding and the other way
///   round, and the input with one byte changed read over the input.
/// * The log layout's properties (SceneFileCheck+Log.swift).
package enum SceneFileCheck {
    package static func check(_ data: Data) throws(FuzzFailure) {
        _ = SceneFile.peekVersion(data)
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
            if let quick = SceneFile.peekVersion(data), quick != file.version {
                throw FuzzFailure("the quick read \(quick), the full read \(file.version)")
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
        guard SceneFile.peekVersion(encoded) == file.version else {
            throw FuzzFailure("the version of a written file not read back by the fast path\n\(text(encoded))")
        }
    }

    static func text(_ data: Data) -> String {
        data.map { String($0, radix: 16) }.joined(separator: " ")
    }
}
