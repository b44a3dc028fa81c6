import Foundation
import Logging

extension SceneID {
    /// The scene that keeps the windows' records (``WindowRecords``). It
    /// starts with `.`, which no id a caller makes can: it never meets a
    /// scene of theirs, and ``SceneRegistry/sceneIDs()`` never lists it.
    package static let windows = SceneID(reserved: ".windows")

    /// An id as a storage names it: a valid one, or ``windows``.
    package init?(stored name: String) {
        if name == Self.windows.rawValue {
            self = .windows
        } else if let id = try? SceneID(name) {
            self = id
        } else {
            return nil
        }
    }
}

/// The windows' records, kept as the values of the reserved scene
/// ``SceneID/windows`` of the registry's storage, one key per window:
///
/// ```text
/// w-3kq9…  =  "1764000000000 1764000360000 1 4711 Notes"
///              created       last active   open pid title (optional, the rest)
/// ```
///
/// Times are milliseconds since 1970; `open` is `1` from a claim until the
/// holder quits; the pid is `-` when none. A value that does not read is
/// left out. A damaged document (or a symbolic link, a FIFO, a file too
/// large to be a scene) is moved to `quarantine/` when found, as any
/// scene's is, and logged (a read-only registry throws instead): only the records are lost, the windows' own
/// scenes are untouched (``SceneRegistry/sceneIDs()`` still lists them).
///
/// A change is the scene's own transaction: its lock, the document read
/// whole, one record appended and synced (the log compacted when it has
/// grown), as every save is. A reading takes no lock: a document is read
/// whole or not at all. Both run on ``executor``, never the caller's.
package struct WindowRecords: Sendable {
    let storage: any SceneStorage
    /// The storage's own (a database's event loop), else a queue of the
    /// registry's for the file root's blocking calls.
    let executor: any TaskExecutor
    let logger: Logger
    /// A read-only registry's records move nothing to quarantine.
    let readOnly: Bool

    package init(storage: any SceneStorage, logger: Logger = Logger(label: "SceneStore"), readOnly: Bool = false) {
        self.storage = storage
        self.logger = logger
        self.readOnly = readOnly
        self.executor = storage.workExecutor ?? QueueExecutor(DispatchQueue(label: "SceneStore.windows"))
    }

    /// Every record.
    /// - Throws: ``SceneStoreError/unsupportedFormat(scene:version:path:)``
    ///   when a newer SceneStore wrote them (left as they are).
    package func all() async throws(SceneStoreError) -> [SceneID: SessionRecord] {
        let read = try await withTaskExecutorPreference(executor) { () async throws(SceneStoreError) in
            try Self.records(in: await storage.read(.windows, after: nil), at: storage.location(of: .windows))
        }
        if let damage = read.damage {
            // Listed without them, every window would look like a scene nobody kept.
            guard !readOnly else {
                throw .storageUnavailable(location: storage.location(of: .windows), reason: "the windows' records are damaged: \(damage)")
            }
            try await update([]) { _ in }
        }
        return read.records
    }

    /// Changes the records of `ids` under the scene's lock: `change` gets
    /// those of them that exist and may add, change or remove any of them
    /// (only them). Nothing is written when nothing changed.
    package func update(
        _ ids: Set<SceneID>, _ change: (inout [SceneID: SessionRecord]) -> Void
    ) async throws(SceneStoreError) {
        try await withTaskExecutorPreference(executor) { () async throws(SceneStoreError) in
            try await storage.transaction(.windows) { (transaction) async throws(SceneStoreError) in
                let read = try Self.records(in: await transaction.read(after: nil), at: storage.location(of: .windows))
                if let damage = read.damage {
                    let moved = try await transaction.quarantine(reason: damage.reason)
                    logger.error("the windows' records were damaged; moved to quarantine, windows start afresh", metadata: [
                        "quarantined": "\(moved)", "reason": "\(damage)",
                    ])
                }
                let before = read.records.filter { ids.contains($0.key) }
                var changed = before
                change(&changed)
                guard changed != before else { return }
                for record in changed.values where record.stored.utf8.count > Self.maxRecordBytes {
                    throw .valueTooLarge(key: record.id.rawValue, size: record.stored.utf8.count, limit: Self.maxRecordBytes)
                }
                var values = read.file?.values ?? SceneValues()
                for id in ids { values[id.rawValue] = changed[id].map { .string($0.stored) } }
                let next = SceneFile(
                    scene: SceneID.windows.rawValue, generation: (read.file?.generation ?? 0) + 1,
                    incarnation: read.file?.incarnation ?? randomToken(), writer: .current(), values: values)
                let writing = SaveWriting(encoder: Locked(SceneFileEncoder()), position: nil, willAppend: { _ in })
                _ = try await transaction.write(next, over: read.file, edited: ids.map(\.rawValue), using: writing)
            }
        }
    }

    /// The longest record, its title included: a scene's default value limit.
    static let maxRecordBytes = SceneRegistry.Limits().maxValueBytes

    /// The records `stored` holds, its file (`nil` when missing or
    /// damaged), and what damage to quarantine it for.
    private static func records(
        in stored: StoredDocument, at location: String
    ) throws(SceneStoreError) -> (records: [SceneID: SessionRecord], file: SceneFile?, damage: SceneFile.Problem?) {
        switch SceneReadResult.decoding(stored, as: .windows).result {
        case .missing:
            return ([:], nil, nil)
        case .damaged(let problem):
            return ([:], nil, problem)
        case .newerVersion(let version):
            throw .unsupportedFormat(scene: SceneID.windows.rawValue, version: version, path: location)
        case .file(let file):
            var records = [SceneID: SessionRecord](minimumCapacity: file.values.count)
            for (key, value) in file.values {
                guard let id = try? SceneID(key), case .string(let text) = value,
                      let record = SessionRecord(id: id, stored: text) else { continue }
                records[id] = record
            }
            return (records, file, nil)
        }
    }
}

/// What the storage keeps about one window scene.
package struct SessionRecord: Sendable, Hashable {
    package var id: SceneID
    package var created: Date
    package var lastActive: Date
    /// `true` from a claim until the holder quits: found `true` while
    /// nobody holds the scene, its holder died.
    package var open: Bool
    /// The process that claimed it last, for display only.
    package var pid: Int32?
    package var title: String?

    package init(id: SceneID, created: Date, lastActive: Date, open: Bool, pid: Int32?, title: String?) {
        self.id = id
        self.created = created
        self.lastActive = lastActive
        self.open = open
        self.pid = pid
        self.title = title
    }

    /// The record as ``WindowRecords`` keeps it.
    var stored: String {
        var text = "\(Self.milliseconds(created)) \(Self.milliseconds(lastActive)) \(open ? 1 : 0) "
        text += pid.map(String.init) ?? "-"
        if let title { text += " " + title }
        return text
    }

    /// The record `text` keeps (``stored``), `nil` when it does not read.
    init?(id: SceneID, stored text: String) {
        let fields = text.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count >= 4, let created = Int64(fields[0]), let lastActive = Int64(fields[1]),
              fields[2] == "0" || fields[2] == "1"
        else { return nil }
        let pid: Int32?
        if fields[3] == "-" {
            pid = nil
        } else if let number = Int32(fields[3]), number > 0 {
            pid = number
        } else {
            return nil
        }
        self.init(
            id: id, created: Self.date(milliseconds: created), lastActive: Self.date(milliseconds: lastActive),
            open: fields[2] == "1", pid: pid, title: fields.count == 5 ? String(fields[4]) : nil)
    }

    /// A record's instant as stored: whole milliseconds since 1970.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return value.isFinite ? Int64(max(min(value, 1e15), -1e15)) : 0
    }

    /// The instant `milliseconds` stores.
    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
