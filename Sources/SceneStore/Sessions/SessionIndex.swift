import Foundation

/// The text form of a root's session records (`.scenestore-sessions`): a
/// header line, then one tab-separated line per window scene, so that a
/// launch with 10 000 windows reads one small file rather than 10 000:
///
/// ```
/// scenestore.sessions 1
/// w-3kq9…	1764000000000	1764000360000	1	4711	=Notes
/// ```
///
/// Fields: scene id, created and last active (milliseconds since 1970),
/// open (`1` from a claim until the holder quits), the claiming pid (`-`
/// when none), the title (`-` when none, else `=` and the text with `\`,
/// tab, newline and return escaped as `\\`, `\t`, `\n`, `\r`).
///
/// A line that does not read is left out (and reported); the scenes
/// themselves are untouched by a damaged index: they are still listed by
/// ``SceneRegistry/sceneIDs()``, only not offered for restoring.
enum SessionIndex {
    static let fileName = ".scenestore-sessions"
    static let header = "scenestore.sessions"
    static let version = 1

    static func encode(_ records: [SceneID: SessionRecord]) -> Data {
        var text = "\(header) \(version)\n"
        for record in records.values.sorted(by: { $0.id < $1.id }) {
            text += record.id.rawValue
            text += "\t\(milliseconds(record.created))\t\(milliseconds(record.lastActive))"
            text += record.open ? "\t1" : "\t0"
            text += "\t" + (record.pid.map(String.init) ?? "-")
            text += "\t" + (record.title.map { "=" + escape($0) } ?? "-")
            text += "\n"
        }
        return Data(text.utf8)
    }

    /// The records `data` holds, and how many lines were left out.
    /// - Throws: ``SceneStoreError/unsupportedFormat(scene:version:path:)``
    ///   for an index of a newer format (left as it is).
    static func parse(_ data: Data, path: String) throws(SceneStoreError) -> (records: [SceneID: SessionRecord], skipped: Int) {
        guard !data.isEmpty else { return ([:], 0) }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        guard let first = lines.popFirst() else { return ([:], 0) }
        let head = first.split(separator: " ")
        guard head.count == 2, head[0] == header, let found = Int(head[1]) else {
            return ([:], lines.count + 1)
        }
        guard found <= version else {
            throw .unsupportedFormat(scene: fileName, version: found, path: path)
        }
        var records: [SceneID: SessionRecord] = [:]
        var skipped = 0
        for line in lines {
            guard let record = record(line) else {
                skipped += 1
                continue
            }
            records[record.id] = record
        }
        return (records, skipped)
    }

    private static func record(_ line: Substring) -> SessionRecord? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 6, let id = try? SceneID(String(fields[0])),
              let created = Int64(fields[1]), let lastActive = Int64(fields[2]),
              fields[3] == "0" || fields[3] == "1" else { return nil }
        let pid: Int32?
        if fields[4] == "-" {
            pid = nil
        } else if let number = Int32(fields[4]), number > 0 {
            pid = number
        } else {
            return nil
        }
        let title: String?
        if fields[5] == "-" {
            title = nil
        } else if fields[5].hasPrefix("="), let text = unescape(fields[5].dropFirst()) {
            title = text
        } else {
            return nil
        }
        return SessionRecord(
            id: id, created: date(created), lastActive: date(lastActive), open: fields[3] == "1", pid: pid, title: title)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return value.isFinite ? Int64(max(min(value, 1e15), -1e15)) : 0
    }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\r\n": out += "\\r\\n"
            default: out.append(character)
            }
        }
        return out
    }

    private static func unescape(_ text: Substring) -> String? {
        var out = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "\\": out += "\\"
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                default: return nil
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return escaping ? nil : out
    }
}
