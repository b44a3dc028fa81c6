import Foundation
import SceneNavigation

/// The properties every byte string keeps when restored as a navigation
/// path: a type-erased ``ScenePath`` (through ``fuzzTypes``), a typed stack
/// of books, and a stack persisted by reference.
///
/// * Restoring never traps, and throws only what it documents:
///   `corruptData` or `unsupportedVersion` under either policy; when strict,
///   the lenient restore's first dropped element, by position.
/// * A strict restore that succeeds gives the lenient restore's path.
/// * Whatever was restored encodes again, restores strictly to an equal
///   path (with an equal hash), and encodes to the same bytes again.
package enum ScenePathCheck {
    package static func check(_ data: Data) throws(FuzzFailure) {
        try checkTagged(data)
        try checkTyped(data)
        try checkReferences(data)
    }

    private static func checkTagged(_ data: Data) throws(FuzzFailure) {
        let lenient: RestoredPath<ScenePath>
        do {
            lenient = try ScenePath.restore(from: data, types: fuzzTypes, policy: .lenient)
        } catch {
            try expectDocumentError(error, "lenient restore")
            try expectStrictThrows(error) { () throws(ScenePathError) in
                _ = try ScenePath.restore(from: data, types: fuzzTypes, policy: .strict)
            }
            return
        }
        try expectStrict(agreesWith: lenient) { () throws(ScenePathError) in
            try ScenePath.restore(from: data, types: fuzzTypes, policy: .strict)
        }

        let path = lenient.path
        let encoded: Data
        do {
            encoded = try path.encoded(types: fuzzTypes)
        } catch {
            throw FuzzFailure("a restored path does not encode: \(error)\npath: \(path)")
        }
        let again: ScenePath
        do {
            again = try ScenePath.restore(from: encoded, types: fuzzTypes, policy: .strict).path
        } catch {
            throw FuzzFailure("an encoded path does not restore: \(error)\n\(text(encoded))")
        }
        guard again == path, again.hashValue == path.hashValue else {
            throw FuzzFailure("a path changed on its way through encoding:\n\(path)\nbecame\n\(again)\n\(text(encoded))")
        }
        try expectSameBytes(encoded) { () throws(ScenePathError) in try again.encoded(types: fuzzTypes) }
    }

    private static func checkTyped(_ data: Data) throws(FuzzFailure) {
        let lenient: RestoredPath<[FuzzBook]>
        do {
            lenient = try [FuzzBook].restore(from: data, policy: .lenient)
        } catch {
            try expectDocumentError(error, "lenient typed restore")
            try expectStrictThrows(error) { () throws(ScenePathError) in
                _ = try [FuzzBook].restore(from: data, policy: .strict)
            }
            return
        }
        try expectStrict(agreesWith: lenient) { () throws(ScenePathError) in
            try [FuzzBook].restore(from: data, policy: .strict)
        }
        let encoded: Data
        do {
            encoded = try lenient.path.encodedPath()
        } catch {
            throw FuzzFailure("a restored stack does not encode: \(error)\nstack: \(lenient.path)")
        }
        let again: [FuzzBook]
        do {
            again = try [FuzzBook].restore(from: encoded, policy: .strict).path
        } catch {
            throw FuzzFailure("an encoded stack does not restore: \(error)\n\(text(encoded))")
        }
        guard again == lenient.path else {
            throw FuzzFailure("a stack changed on its way through encoding:\n\(lenient.path)\nbecame\n\(again)")
        }
        try expectSameBytes(encoded) { () throws(ScenePathError) in try again.encodedPath() }
    }

    private static func checkReferences(_ data: Data) throws(FuzzFailure) {
        let resolved: RestoredPath<[FuzzScreen]>
        do {
            resolved = try [FuzzScreen].restore(references: data, policy: .lenient, resolve: FuzzScreen.resolve)
        } catch {
            try expectDocumentError(error, "restore by reference")
            return
        }
        // What decoded but did not resolve: each must be a reference (an
        // `Int`) that `resolve` refuses, at a position of its own.
        let unresolved = resolved.dropped.compactMap { element -> (any ScenePathElement)? in
            if case .unresolved(let reference) = element.reason { reference } else { nil }
        }
        let positions = resolved.dropped.map(\.position)
        guard resolved.path.allSatisfy({ $0.id.isMultiple(of: 2) }),
              unresolved.allSatisfy({ ($0 as? Int).map { !$0.isMultiple(of: 2) } ?? false }),
              positions == positions.sorted(), Set(positions).count == positions.count else {
            throw FuzzFailure("references resolved wrongly: \(resolved.path) kept, \(resolved.dropped) dropped")
        }
        let encoded: Data
        do {
            encoded = try resolved.path.encodedReferences()
        } catch {
            throw FuzzFailure("a resolved stack does not encode its references: \(error)")
        }
        do {
            let again = try [FuzzScreen].restore(references: encoded, policy: .strict, resolve: FuzzScreen.resolve)
            guard again.path == resolved.path, again.dropped.isEmpty else {
                throw FuzzFailure("a resolved stack changed on its way through encoding: \(resolved.path) became \(again.path)")
            }
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            throw FuzzFailure("encoded references do not restore: \(error)\n\(text(encoded))")
        }
    }

    // MARK: Shared expectations

    /// Restoring a whole document may only fail for the document's sake.
    private static func expectDocumentError(_ error: ScenePathError, _ what: String) throws(FuzzFailure) {
        switch error {
        case .corruptData, .unsupportedVersion: return
        default: throw FuzzFailure("\(what) threw \(error), which is not about the document")
        }
    }

    /// When the lenient restore refused the document, the strict one does too.
    private static func expectStrictThrows(
        _ lenientError: ScenePathError, _ strict: () throws(ScenePathError) -> Void
    ) throws(FuzzFailure) {
        do {
            try strict()
        } catch {
            try expectDocumentError(error, "strict restore")
            return
        }
        throw FuzzFailure("strict restore accepted what lenient refused: \(lenientError)")
    }

    /// A strict restore gives the same path when nothing was dropped, and
    /// otherwise throws for the first dropped element.
    private static func expectStrict<Path: Equatable>(
        agreesWith lenient: RestoredPath<Path>, _ strict: () throws(ScenePathError) -> RestoredPath<Path>
    ) throws(FuzzFailure) {
        let positions = lenient.dropped.map(\.position)
        guard positions == positions.sorted(), Set(positions).count == positions.count else {
            throw FuzzFailure("dropped positions out of order: \(positions)")
        }
        do {
            let restored = try strict()
            guard lenient.dropped.isEmpty else {
                throw FuzzFailure("strict restore accepted what lenient dropped: \(lenient.dropped)")
            }
            guard restored.path == lenient.path, restored.dropped.isEmpty else {
                throw FuzzFailure("strict and lenient restores differ: \(restored.path) and \(lenient.path)")
            }
        } catch let failure as FuzzFailure {
            throw failure
        } catch let error as ScenePathError {
            let position: Int?
            switch error {
            case .unknownTag(_, let at), .undecodableElement(_, let at, _): position = at
            default: position = nil
            }
            guard let first = lenient.dropped.first, position == first.position else {
                throw FuzzFailure("strict restore threw \(error); lenient dropped \(lenient.dropped)")
            }
        } catch {
            throw FuzzFailure("strict restore threw an untyped \(error)")
        }
    }

    private static func expectSameBytes(_ expected: Data, _ encode: () throws(ScenePathError) -> Data) throws(FuzzFailure) {
        let bytes: Data
        do {
            bytes = try encode()
        } catch {
            throw FuzzFailure("encoding a restored path again failed: \(error)")
        }
        guard bytes == expected else {
            throw FuzzFailure("encoding is not deterministic:\n\(text(expected))\nthen\n\(text(bytes))")
        }
    }

    private static func text(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }
}
