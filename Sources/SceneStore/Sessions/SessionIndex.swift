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

    /// The largest index read or written: 16 MiB, room for
    /// ``maxWindowLines`` windows of ``maxLineBytes`` each. A line without
    /// a title takes at most 184 bytes (an id of 128, two times of 19, a
    /// pid of 10, the flag, a dash for no title, the tabs and newline), so
    /// 10 000 windows titled in a few words take 2-3 MiB. Checked with
    /// `fstat` before reading: a larger file costs neither memory nor
    /// time, it is refused with ``SceneStoreError/io(syscall:path:errno:)``
    /// (`EFBIG`) and left as it is; so is a write that would pass it (a
    /// title of megabytes).
    static let maxBytes = maxWindowLines * maxLineBytes
    static let maxWindowLines = 16_384
    static let maxLineBytes = 1024

    static func encode(_ records: [SceneID: SessionRecord]) -> Data {
        var text = "\(header) \(version)\n"
        for record in records.values.sorted(by: { $0.id < $1.id }) {
            text += record.id.rawValue
            text += "\t\(SessionRecord.milliseconds(record.created))\t\(SessionRecord.milliseconds(record.lastActive))"
            text += record.open ? "\t1" : "\t0"
            text += "\t" + (record.pid.map(String.init) ?? "-")
            text += "\t" + (record.title.map { "=" + escape($0) } ?? "-")
            text += "\n"
        }
        return Data(text.utf8)
    }

    /// The records `data` holds; a damaged line is left out. Read as
    /// bytes, a line at a time: a launch with 10 000 windows reads it.
    /// - Throws: ``SceneStoreError/unsupportedFormat(scene:version:path:)``
    ///   for an index of a newer format (left as it is).
    static func parse(_ data: Data, path: String) throws(SceneStoreError) -> [SceneID: SessionRecord] {
        let bytes = [UInt8](data)
        var lines = bytes.split(separator: newline, omittingEmptySubsequences: true)[...]
        guard let first = lines.popFirst() else { return [:] }
        let head = first.split(separator: space)
        guard head.count == 2, head[0].elementsEqual(header.utf8), let found = integer(head[1]) else {
            return [:]
        }
        guard found <= version else {
            throw .unsupportedFormat(scene: fileName, version: Int(found), path: path)
        }
        var records = [SceneID: SessionRecord](minimumCapacity: lines.count)
        for line in lines {
            if let record = record(line) { records[record.id] = record }
        }
        return records
    }

    private static let newline = UInt8(ascii: "\n")
    private static let tab = UInt8(ascii: "\t")
    private static let space = UInt8(ascii: " ")
    private static let dash = UInt8(ascii: "-")

    private static func record(_ line: ArraySlice<UInt8>) -> SessionRecord? {
        let fields = line.split(separator: tab, omittingEmptySubsequences: false)
        guard fields.count == 6, let id = try? SceneID(String(decoding: fields[0], as: UTF8.self)),
              let created = integer(fields[1]), let lastActive = integer(fields[2]),
              fields[3].count == 1, let open = fields[3].first, open == UInt8(ascii: "0") || open == UInt8(ascii: "1")
        else { return nil }
        let pid: Int32?
        if fields[4].elementsEqual([dash]) {
            pid = nil
        } else if let number = integer(fields[4]), let narrow = Int32(exactly: number), narrow > 0 {
            pid = narrow
        } else {
            return nil
        }
        let title: String?
        if fields[5].elementsEqual([dash]) {
            title = nil
        } else if fields[5].first == UInt8(ascii: "="), let text = unescape(fields[5].dropFirst()) {
            title = text
        } else {
            return nil
        }
        return SessionRecord(
            id: id, created: SessionRecord.date(milliseconds: created),
            lastActive: SessionRecord.date(milliseconds: lastActive), open: open == UInt8(ascii: "1"),
            pid: pid, title: title)
    }

    /// A decimal integer (`nil` when it is not one, or overflows).
    private static func integer(_ bytes: ArraySlice<UInt8>) -> Int64? {
        Int64(String(decoding: bytes, as: UTF8.self))
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

    private static func unescape(_ text: ArraySlice<UInt8>) -> String? {
        guard text.contains(UInt8(ascii: "\\")) else { return String(validating: text, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var escaping = false
        for byte in text {
            if escaping {
                switch byte {
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "t"): out.append(tab)
                case UInt8(ascii: "n"): out.append(newline)
                case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
                default: return nil
                }
                escaping = false
            } else if byte == UInt8(ascii: "\\") {
                escaping = true
            } else {
                out.append(byte)
            }
        }
        return escaping ? nil : String(validating: out, as: UTF8.self)
    }
}
