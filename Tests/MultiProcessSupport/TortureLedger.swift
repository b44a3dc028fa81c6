import Foundation
import SceneStore

/// What the crash torture's writers began and had acknowledged, and the
/// rule that says what each scene may hold afterwards.
///
/// A writer prints `begin SEQ T kind scene [key [value]]` before an
/// operation and `ack SEQ T` once it returned (flushed to disk); T is
/// `CLOCK_MONOTONIC` nanoseconds, one clock for every process here. A
/// writer's values only grow. So for each key, the scene must hold exactly
/// what the writer's last acknowledged operation on it left, unless an
/// operation that may have taken effect after it says otherwise: the
/// writer's own unacknowledged last operation, or a discard of the scene
/// that had not returned before that acknowledged operation began. And a
/// value an acknowledged discard ended never comes back.
package struct TortureLedger {
    package enum Kind: Equatable {
        case set(Int)
        case remove
        case discard
    }

    package struct Operation {
        package let writer: String
        package let sequence: Int
        package let kind: Kind
        package let scene: String
        package let key: String?
        package let began: Int
        /// When it returned; `nil` if its writer died first.
        package var acknowledged: Int?
    }

    private(set) var operations: [Operation] = []

    package init() {}
    /// When each writer was seen dead.
    private var deaths: [String: Int] = [:]

    /// Adds the lines of a writer that is dead now (seen dead at `death`).
    package mutating func record(writer: String, lines: [String], death: Int) throws {
        var started: [Int: Int] = [:]
        for line in lines {
            let fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "begin":
                guard fields.count >= 5, let sequence = Int(fields[1]), let at = Int(fields[2]) else {
                    throw LedgerError.malformed(line)
                }
                let kind: Kind
                switch fields[3] {
                case "set":
                    guard fields.count == 7, let value = Int(fields[6]) else { throw LedgerError.malformed(line) }
                    kind = .set(value)
                case "remove": kind = .remove
                case "discard": kind = .discard
                default: throw LedgerError.malformed(line)
                }
                started[sequence] = operations.count
                operations.append(Operation(
                    writer: writer, sequence: sequence, kind: kind, scene: fields[4],
                    key: fields.count >= 6 ? fields[5] : nil, began: at))
            case "ack":
                guard fields.count == 3, let sequence = Int(fields[1]), let at = Int(fields[2]),
                      let index = started[sequence] else { throw LedgerError.malformed(line) }
                operations[index].acknowledged = at
            default:
                continue
            }
        }
        deaths[writer] = death
    }

    package var acknowledgedWrites: Int {
        operations.count { $0.acknowledged != nil && $0.kind != .discard }
    }

    package var unacknowledged: Int { operations.count { $0.acknowledged == nil } }

    /// Every key of `scene` whose value on disk breaks the rule, described.
    package func violations(scene: String, onDisk values: [String: SceneValue]) -> [String] {
        let discards = operations.filter { $0.scene == scene && $0.kind == .discard }
        // A discard may have taken effect until it returned, or until its
        // writer died.
        let discardEnds = discards.map { $0.acknowledged ?? deaths[$0.writer] ?? Int.max }
        var byKey: [String: [Operation]] = [:]
        for operation in operations where operation.scene == scene && operation.kind != .discard {
            if let key = operation.key { byKey[key, default: []].append(operation) }
        }
        var problems: [String] = []
        for key in Set(byKey.keys).union(values.keys).sorted() {
            let history = byKey[key, default: []]
            let disk = values[key]
            var allowed: Set<Int> = []
            var absenceAllowed = true
            if let last = history.last(where: { $0.acknowledged != nil }) {
                if case .set(let value) = last.kind {
                    // A discard that began after the set returned ended it
                    // for sure; one that overlapped it may have.
                    let ended = discards.contains { discard in
                        discard.acknowledged != nil && last.acknowledged.map { discard.began > $0 } == true
                    }
                    if !ended { allowed.insert(value) }
                    absenceAllowed = ended || discardEnds.contains { $0 > last.began }
                }
            }
            // The writer's own later operation, begun but never
            // acknowledged, may or may not have landed.
            let lastAcknowledged = history.last(where: { $0.acknowledged != nil })?.sequence ?? 0
            for pending in history where pending.acknowledged == nil && pending.sequence > lastAcknowledged {
                switch pending.kind {
                case .set(let value): allowed.insert(value)
                case .remove: absenceAllowed = true
                case .discard: break
                }
            }
            switch disk {
            case nil where absenceAllowed: continue
            case .int(let value)? where allowed.contains(value): continue
            default:
                let acknowledged = history.filter { $0.acknowledged != nil }.map { "\($0.sequence):\($0.kind)" }
                problems.append("\(scene)/\(key): disk \(disk.map { "\($0)" } ?? "absent"), allowed \(allowed.sorted())\(absenceAllowed ? " or absent" : ""); acknowledged \(acknowledged.suffix(3))")
            }
        }
        return problems
    }

    package enum LedgerError: Error {
        case malformed(String)
    }
}
