import Foundation

/// Reading a version 2 file's log (see SceneFileLog.swift).
extension SceneFileParser {
    /// The records of the `log` array, up to the first that does not parse
    /// or match its checksum, or the end of the bytes: a torn tail, whose
    /// start is returned (and where reading stops). A `log` that is not an
    /// array at all is damage, thrown.
    mutating func log() throws(SceneFile.Problem) -> ([SceneFileRecord], tornAt: Int?, end: Int?) {
        var records: [SceneFileRecord] = []
        try expect(UInt8(ascii: "["))
        var end = index
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return (records, nil, end)
        }
        while true {
            skipWhitespace()
            let start = index
            do throws(SceneFile.Problem) {
                records.append(try record())
                end = index
                if try closes(UInt8(ascii: "]"), "log") { return (records, nil, end) }
            } catch {
                index = bytes.count
                return (records, start, nil)
            }
        }
    }

    /// The records a log gained after `offset`, where an earlier reading of
    /// the same document's bytes found its last record's end (`first`: the
    /// log had none), when the bytes go on with whole records and the
    /// document's end and nothing else; `nil` for anything else (a torn
    /// tail, damage), which a full reading judges.
    /// - Returns: the records and where the last one ends.
    static func logContinuation(_ data: Data, from offset: Int, first: Bool) -> ([SceneFileRecord], end: Int)? {
        data.withUnsafeBytes { raw -> ([SceneFileRecord], end: Int)? in
            var parser = SceneFileParser(bytes: raw.bindMemory(to: UInt8.self), expectedKeys: 0)
            parser.index = offset
            var records: [SceneFileRecord] = []
            var end = offset
            do throws(SceneFile.Problem) {
                while true {
                    parser.skipWhitespace()
                    if parser.peek() == UInt8(ascii: "]") { break }
                    if !(first && records.isEmpty) { try parser.expect(UInt8(ascii: ",")) }
                    parser.skipWhitespace()
                    records.append(try parser.record())
                    end = parser.index
                }
                try parser.expect(UInt8(ascii: "]"))
                try parser.expect(UInt8(ascii: "}"))
                parser.skipWhitespace()
            } catch {
                return nil
            }
            return parser.index == parser.bytes.count ? (records, end) : nil
        }
    }

    /// One record: its fields in any order, the checksum last, covering
    /// the record's bytes before it.
    private mutating func record() throws(SceneFile.Problem) -> SceneFileRecord {
        let start = index
        var seen: Set<String> = []
        var generation: UInt64?
        var writer: (pid: Int32?, token: String?) = (nil, nil)
        var set: [(String, SceneValue)] = []
        var removed: [String] = []
        var checked = false
        try object { (parser, key, memberStart) throws(SceneFile.Problem) in
            guard !checked else { throw parser.failure("a field follows a record's checksum") }
            guard seen.insert(key).inserted else { throw parser.failure("field \(key.debugDescription) appears twice in a record") }
            switch key {
            case "generation": generation = try parser.integer(as: UInt64.self, "generation")
            case "writer": writer = try parser.writer(seen: &seen)
            case "set":
                var keys: Set<String> = []
                try parser.object { (parser, key) throws(SceneFile.Problem) in
                    guard keys.insert(key).inserted else { throw parser.failure("key \(key.debugDescription) is set twice") }
                    set.append((key, try parser.value(forKey: key)))
                }
            case "remove":
                if try parser.opens(UInt8(ascii: "["), closedBy: UInt8(ascii: "]")) {
                    repeat {
                        removed.append(try parser.string())
                    } while try !parser.closes(UInt8(ascii: "]"), "array")
                }
            case "checksum":
                let stored = try parser.string()
                let covered = UnsafeBufferPointer(rebasing: parser.bytes[start..<memberStart])
                guard SceneFileRecord.checksum(covered) == stored else { throw parser.failure("a record's checksum does not match") }
                checked = true
            default: try parser.skipValue(depth: 2)
            }
        }
        guard checked, let generation, let pid = writer.pid, let token = writer.token else {
            throw failure("a record lacks a field")
        }
        return SceneFileRecord(generation: generation, writer: WriterIdentity(pid: pid, token: token), set: set, removed: removed)
    }
}
