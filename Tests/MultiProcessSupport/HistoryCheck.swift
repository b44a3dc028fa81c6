/// One operation of a `scenes-lab history` client, as its lines reported it.
package struct HistoryOperation: Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        case set(key: String, value: String)
        case remove(key: String)
        case update(key: String, value: String)
        case discard
        case reopen
    }

    package let client: String
    package let index: Int
    package let kind: Kind
    /// `CLOCK_MONOTONIC` nanoseconds when it began.
    package let begin: Int
    /// When it was acknowledged (durable); `nil` if it never was: it
    /// failed, or its process was killed first. Such an operation may have
    /// taken effect at any moment after it began, or never.
    package var end: Int?

    /// What it writes to `key`: `.some(value)`, `.some(nil)` for a remove
    /// or a discard, `nil` when it leaves the key alone.
    package func writes(_ key: String) -> String?? {
        switch kind {
        case .set(key, let value), .update(key, let value): .some(value)
        case .remove(key), .discard: .some(nil)
        default: nil
        }
    }

    package var description: String {
        "\(client)#\(index) \(kind) [\(begin)...\(end.map(String.init) ?? "unacknowledged")]"
    }

    /// Parses a `begin I T ...` line of client `client`.
    package init?(client: String, line: Substring) {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard words.count >= 4, words[0] == "begin", let index = Int(words[1]), let begin = Int(words[2]) else { return nil }
        let kind: Kind
        switch (words[3], words.count) {
        case ("set", 6): kind = .set(key: words[4], value: words[5])
        case ("update", 6): kind = .update(key: words[4], value: words[5])
        case ("remove", 5): kind = .remove(key: words[4])
        case ("discard", 4): kind = .discard
        case ("reopen", 4): kind = .reopen
        default: return nil
        }
        self.init(client: client, index: index, kind: kind, begin: begin, end: nil)
    }

    package init(client: String, index: Int, kind: Kind, begin: Int, end: Int?) {
        self.client = client
        self.index = index
        self.kind = kind
        self.begin = begin
        self.end = end
    }

    /// The operations a client's lines report, acknowledgements applied.
    package static func parse(client: String, lines: [String]) -> [HistoryOperation] {
        var operations: [Int: HistoryOperation] = [:]
        for line in lines {
            if line.hasPrefix("begin "), let operation = HistoryOperation(client: client, line: Substring(line)) {
                operations[operation.index] = operation
            } else if line.hasPrefix("ack ") {
                let words = line.split(separator: " ")
                if words.count == 3, let index = Int(words[1]), let end = Int(words[2]) { operations[index]?.end = end }
            }
        }
        return operations.values.sorted { $0.begin < $1.begin }
    }
}

/// Whether a scene's stored state is explained by a history: for each
/// key, the stored value must be what some operation wrote that no
/// acknowledged operation on the key began after (it was not overwritten
/// for sure), or the key is absent and nothing acknowledged ever wrote
/// it. A lost acknowledged write shows as a stored value that a later,
/// acknowledged write should have replaced, or as a value nobody wrote.
package enum HistoryCheck {
    /// The values `key` may hold after `history` (`nil`: absent).
    package static func admissible(_ key: String, after history: [HistoryOperation]) -> Set<String?> {
        let writers = history.filter { $0.writes(key) != nil }
        let acknowledgedBegins = writers.filter { $0.end != nil }.map(\.begin)
        let latestAcknowledgedBegin = acknowledgedBegins.max()
        var values: Set<String?> = []
        if latestAcknowledgedBegin == nil { values.insert(nil) }  // the scene as it started
        for writer in writers {
            // Overwritten for sure: an acknowledged write on the key began after it was acknowledged.
            if let end = writer.end, let latest = latestAcknowledgedBegin, latest > end { continue }
            if case .some(let value) = writer.writes(key) { values.insert(value) }
        }
        return values
    }

    /// One line per key whose stored value the history does not explain.
    package static func violations(stored: [String: String], keys: [String], history: [HistoryOperation]) -> [String] {
        keys.compactMap { key in
            let allowed = admissible(key, after: history)
            let value = stored[key]
            guard !allowed.contains(value) else { return nil }
            let writers = history.filter { $0.writes(key) != nil }.suffix(6).map(\.description).joined(separator: "; ")
            return "\(key) holds \(value ?? "nothing"), which no write that could be last wrote "
                + "(could be: \(allowed.map { $0 ?? "nothing" }.sorted())); last writes: \(writers)"
        }
    }
}
