import Foundation

/// One element of a stored path as JSON, read without knowing its type: the
/// form in which a binding carries the elements this process cannot restore
/// back into what it writes.
///
/// Numbers are kept as `Int64`, `UInt64` or `Double`, whichever reads the
/// stored number exactly, so writing the element again gives the same value.
enum StoredElement: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case array([StoredElement])
    case object([String: StoredElement])
}

extension StoredElement: Codable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([StoredElement].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: StoredElement].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// A stored path element by element, each marked with whether this process
/// restored it into its path.
struct StoredPath: Equatable {
    var elements: [StoredElement]
    var restored: [Bool]

    /// The elements this process restored, in stored order.
    var restoredElements: [StoredElement] {
        zip(elements, restored).compactMap { $1 ? $0 : nil }
    }

    /// What to write when `mine` (the caller's path, edited from `base`)
    /// is saved over this stored path: the edit rebased onto it
    /// (`PathRebase`), with the elements this process could not restore
    /// kept in place for as long as the restored element under them stays
    /// (a push leaves them, a pop of the screen they sit on takes them).
    func splice(_ mine: [StoredElement], editedFrom base: [StoredElement]) -> [StoredElement] {
        let edit = PathRebase.Edit(base: base, local: mine)
        return edit.kept(in: elements, isRestored: { restored[$0] }) + edit.pushed
    }
}

extension StoredParts {
    /// What to write when `mine` (the caller's parts, edited from `base`;
    /// `nil`: from what this process restored of these) is saved over
    /// these stored parts. `restored` marks, per stored element of each
    /// part, whether this process restored it.
    ///
    /// * The path: the edit rebased onto the stored path (``StoredPath/splice(_:editedFrom:)``).
    /// * The forward entries follow the path they continue: when the
    ///   merged path is the caller's, the caller's edit of them is rebased
    ///   onto the stored ones, unless the caller pushed a screen that did
    ///   not come off them (a new navigation clears them, as in a browser,
    ///   also one by a binding that knows no history); when it
    ///   is the stored path, the stored entries stay; otherwise both sides
    ///   navigated and there are none.
    /// * The recently viewed screens: the edit rebased onto the stored
    ///   ones, so another window's views stay.
    func merging(
        _ mine: StoredParts, editedFrom base: StoredParts?,
        restored: (elements: [Bool], forward: [Bool], recent: [Bool])
    ) -> StoredParts {
        let path = StoredPath(elements: elements, restored: restored.elements)
        let forwardPart = StoredPath(elements: forward, restored: restored.forward)
        let recentPart = StoredPath(elements: recent, restored: restored.recent)
        let basePath = base?.elements ?? path.restoredElements
        let mergedPath = path.splice(mine.elements, editedFrom: basePath)
        let baseForward = base?.forward ?? forwardPart.restoredElements
        let mergedForward: [StoredElement]
        if mergedPath == mine.elements {
            // A push that did not come off the forward entries (`forward()`
            // moves their top onto the path) is a new navigation.
            let pushed = PathRebase.Edit(base: basePath, local: mine.elements).pushed
            let navigated = !pushed.isEmpty && mine.forward + pushed.reversed() != baseForward
            mergedForward = navigated ? [] : forwardPart.splice(mine.forward, editedFrom: baseForward)
        } else if mergedPath == elements {
            mergedForward = forward
        } else {
            mergedForward = []
        }
        let mergedRecent = recentPart.splice(mine.recent, editedFrom: base?.recent ?? recentPart.restoredElements)
        return StoredParts(elements: mergedPath, forward: mergedForward, recent: mergedRecent)
    }
}
