import Foundation
import Logging

/// Where a registry's scenes persist: the one seam between the store and
/// its medium. ``SceneStore``, its streams, `update`, SceneNavigation and
/// the demo never know which one they use. The file root
/// (``SceneDirectory``) is the default and the only implementation without
/// dependencies; `SceneStorePostgres` keeps scenes in a database.
///
/// Every implementation keeps each scene as its scene document, the bytes
/// of ``SceneFile/encoded(_:)`` (format, generation, incarnation, writer,
/// checksum, values, and a log of later saves), so versions, merges,
/// limits and damage are judged the same way whatever the medium.
///
/// Contract for conformers:
/// * ``transaction(_:_:)`` runs its body holding the scene's exclusive
///   lock, waiting at most the registry's lock timeout (then it throws
///   ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``): no other
///   transaction on the scene, in any process or on any host, runs
///   meanwhile. When it returns, what the body wrote is durable and every
///   reader sees it. A body that throws may leave the writes it made (the
///   file root: each write is atomic on its own) or none (a database rolls
///   back); the store never relies on either.
/// * Reads outside a transaction (``read(_:after:)``) see one complete
///   document, the latest or a moment older, never a mix.
/// * ``commit(_:_:over:using:)`` is atomic with respect to transactions:
///   it never lands between a transaction's read and its write.
/// * ``watch(_:logger:handler:)`` reports every change another writer
///   commits as ``SceneStorageEvent/changed(_:)`` for its scene, or
///   ``SceneStorageEvent/rescan`` when changes may have been missed. An
///   event is a hint, never a value: a spurious one costs a read.
/// * Everything may be called from any thread or task. The calls that
///   reach the medium are `async`: a database suspends while it waits for
///   the server; the file root never suspends (its work is
///   quick local I/O), so a store applies its changes right where it
///   hears of them.
package protocol SceneStorage: Sendable {
    /// Where the scenes are, for messages and logs: a path, or a database
    /// URL without its password.
    var location: String { get }

    /// Where scene `id` is, for messages: its file, or its row.
    func location(of id: SceneID) -> String

    /// The scene's document now, without the lock.
    /// - Parameter cursor: where an earlier reading of the scene's log
    ///   ended. When the document still goes on from there (its first
    ///   bytes are the ones `cursor` read: no whole write since, and it
    ///   reaches as far), the result is ``StoredDocument/continued(_:)``,
    ///   the bytes after it: only what was appended since, not the scene.
    func read(_ id: SceneID, after cursor: LogPosition?) async throws(SceneStoreError) -> StoredDocument

    /// Where a store runs its I/O on this storage; `nil` (the default): a
    /// serial queue of the store's own, for a storage whose calls block
    /// their thread (local I/O). A storage whose calls only suspend gives
    /// the executor its I/O completes on (a database connection's event
    /// loop): a save's statement is then sent, and its answer taken up,
    /// without waking another thread. Never Swift's cooperative pool,
    /// whose few threads an app may block.
    var workExecutor: (any TaskExecutor)? { get }

    /// Runs `body` holding the exclusive lock of scene `id`; see the
    /// contract above.
    func transaction<Result>(
        _ id: SceneID, _ body: (any SceneStorageTransaction) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result

    /// Commits `record`, a store's pending edits as the generation after
    /// `base`, the document the store holds as the stored one, in one
    /// step and only if the stored document still names `base`'s version
    /// and no transaction on the scene is under way; watchers are told as
    /// of a transaction's write. Never waits for a lock. The file root
    /// appends the record to the scene's log, without reading the scene
    /// first when the log still ends where the store's readings left it
    /// (`writing`); a database replaces the document, `base` with the
    /// record applied, in one statement.
    /// - Returns: what it wrote. ``Commit/refused`` is no failure: the
    ///   caller saves in a transaction, over what is stored.
    func commit(
        _ id: SceneID, _ record: SceneFileRecord, over base: SceneFile, using writing: SaveWriting
    ) async throws(SceneStoreError) -> Commit

    /// Whether scene `id`'s log still ends where `position` says, its
    /// first bytes the ones `position` read: nobody wrote after it. Told
    /// without suspending, and only by a storage whose reads are local and
    /// cheap (a few bytes read); `false` when it cannot tell. A store told
    /// of its own record by the watcher checks this first and reads
    /// nothing more (``SceneFileReader/ownAppend``).
    func logEnds(_ id: SceneID, at position: LogPosition) -> Bool

    /// The scenes that have a document, sorted.
    func sceneIDs() async throws(SceneStoreError) -> [SceneID]

    /// Starts reporting other writers' changes to `handler`, or returns
    /// `nil` when `preference` is ``WatcherPreference/none`` or nothing
    /// can watch (logged). The handler runs on the watcher's own thread and
    /// must return quickly.
    func watch(
        _ preference: WatcherPreference, logger: Logger,
        handler: @escaping @Sendable (SceneStorageEvent) -> Void
    ) async -> (any SceneStorageWatch)?

    /// Waits, holding no thread, for the work the storage finishes off the
    /// save path (a previous version's unlink), once the registry has
    /// closed its stores, then lets go of what it holds open (connections,
    /// locks), blocking no thread but its own; nothing is called afterwards.
    func close() async

    /// Lets go of what the storage holds open at once, as a process that
    /// died would (a registry abandoned); nothing is called afterwards.
    func release()
}

/// What a scene's exclusive lock allows; valid only inside
/// ``SceneStorage/transaction(_:_:)``.
package protocol SceneStorageTransaction {
    /// The scene's document now (nobody else can change it meanwhile), or
    /// what follows `cursor`, as ``SceneStorage/read(_:after:)``.
    func read(after cursor: LogPosition?) async throws(SceneStoreError) -> StoredDocument
    /// Replaces the scene's document (atomically: readers see the old one
    /// or this one).
    func write(_ document: Data) async throws(SceneStoreError)
    /// Writes `file`, the next version over `base` (the document as read
    /// in this transaction; `nil`: none), which changed the keys `edited`.
    /// The file root appends the record of those keys when the scene's
    /// log ends in `base` and may still grow, and writes the whole file
    /// otherwise (a version 1 file, a torn tail, a log grown past its
    /// bound); a database writes the document (the default, through
    /// ``write(_:)``). Readers see the document before or after it.
    /// - Returns: where the log of a file written whole ends (the next
    ///   reading goes on from there); `nil` after an append, or where
    ///   documents are kept whole.
    func write(
        _ file: SceneFile, over base: SceneFile?, edited: [String], using writing: SaveWriting
    ) async throws(SceneStoreError) -> LogPosition?
    /// Discards the scene: records the incarnation stored now as discarded
    /// (the document's own; `lastSeen`, the one the store last saw, when
    /// there is no readable document; no record when neither is known),
    /// then deletes the document. Another process that finds the document
    /// missing tells this discard from a document that vanished.
    func discard(lastSeen: String?) async throws(SceneStoreError)
    /// Whether a discard of `incarnation` is recorded (among the scene's
    /// last ``discardsRemembered``, which a new document does not forget): a store that held it lets its values go
    /// only then, and writes them back after any other end.
    func discarded(_ incarnation: String) async throws(SceneStoreError) -> Bool
    /// Moves the damaged document aside, never deleting it.
    /// - Returns: where it went, for the report.
    func quarantine(reason: String) async throws(SceneStoreError) -> String
}

/// What ``SceneStorage/commit(_:_:over:using:)`` wrote.
package enum Commit: Sendable, Equatable {
    /// Nothing.
    case refused
    /// The record, appended to the log.
    case appended
    /// The document with the record applied, written whole; its log ends
    /// at `end` (the next reading goes on from there; `nil`: not known).
    case written(end: LogPosition?)
}

/// A scene's document as read.
package enum StoredDocument: Sendable {
    case missing
    case bytes(Data)
    /// Not a document at all (a symbolic link, a FIFO, a directory, more
    /// bytes than any scene the limits allow), described: damage.
    case notADocument(String)
    /// The document still goes on from the cursor the reading was given:
    /// the bytes after it (its log's end, after any records appended
    /// since).
    case continued(Data)
}

extension StoredDocument {
    /// Damage, when a document of `size` bytes is larger than any scene
    /// `limits` allow (the largest scene with the worst JSON overhead:
    /// control characters escaped as `\u00XX`, one-byte keys of booleans);
    /// `nil` when it may be read.
    package static func tooLarge(size: Int, limits: SceneRegistry.Limits = .largest) -> StoredDocument? {
        let limit = limits.maxDocumentBytes
        guard size > limit else { return nil }
        return .notADocument("\(size) bytes, larger than any scene the limits allow (\(limit))")
    }
}

extension SceneRegistry.Limits {
    /// The largest stored document a scene within these limits can take.
    /// A log is written whole again before it passes
    /// ``SceneFile/compactionFactor`` times its whole encoding, which is at
    /// most a few times the bytes the limits count (24 leaves room).
    package var maxDocumentBytes: Int {
        let whole = maxSceneBytes.multipliedReportingOverflow(by: 24).partialValue + (64 << 10)
        return whole.multipliedReportingOverflow(by: SceneFile.compactionFactor).partialValue + SceneFile.compactionSlack
    }
}

/// What a ``SceneStorage`` watcher reports.
package enum SceneStorageEvent: Sendable, Equatable {
    /// Another writer may have changed scene `id`: re-read it.
    case changed(SceneID)
    /// Changes may have been missed: re-read every scene.
    case rescan
    /// Watching stopped and nothing took over (logged).
    case unavailable(reason: String)
}

/// A running ``SceneStorage/watch(_:logger:handler:)``.
package protocol SceneStorageWatch: Sendable {
    /// The mechanism delivering events.
    var kind: WatcherKind { get }
    /// Stops the events; the handler is not called after this returns.
    func cancel()
}

extension SceneStorage {
    package func location(of id: SceneID) -> String { "\(location), scene \(id.rawValue)" }

    package func close() async { release() }

    package func release() {}

    package var workExecutor: (any TaskExecutor)? { nil }

    /// Cannot tell: a storage whose reads are not local.
    package func logEnds(_ id: SceneID, at position: LogPosition) -> Bool {
        false
    }
}

extension SceneStorageTransaction {
    /// How many of a scene's last discards a storage remembers
    /// (``discarded(_:)``): a store that missed more discards of its scene
    /// than this in a row (each a new scene written and discarded again)
    /// writes its values back. In a file, 32 lines of 17 bytes.
    package static var discardsRemembered: Int { 32 }

    /// The whole document, encoded by the store's encoder; returns where
    /// its log ends.
    package func write(
        _ file: SceneFile, over base: SceneFile?, edited: [String], using writing: SaveWriting
    ) async throws(SceneStoreError) -> LogPosition? {
        let document = writing.encoder.withLock { $0.encode(file) }
        try await write(document)
        return LogPosition(written: document, version: file.version)
    }
}

/// What a storage writing a store's save uses of the store.
package struct SaveWriting {
    /// The store's encoder, which measures the scene from one save to the
    /// next (the bound its log may grow to).
    package let encoder: Locked<SceneFileEncoder>
    /// Where the store's readings and saves left the scene's log.
    package let position: LogPosition?
    /// Told, right before a record is appended, where the log will end
    /// once it is written (`nil`: not known): from then on the store takes
    /// an event of a log ending there for its own
    /// (``SceneFileReader/ownAppend``).
    package let willAppend: (_ ending: LogPosition?) -> Void

    /// ``position`` when it is at `version`, and where the log will end
    /// after a `count`-byte record of `generation` appended there, told
    /// to the store (``willAppend``).
    package func appending(_ count: Int, generation: UInt64, over version: DiskVersion) -> LogPosition? {
        let from = position?.version == version ? position : nil
        willAppend(from?.appending(count, generation: generation))
        return from
    }
}

/// A document read and checked as one scene.
package enum SceneReadResult: Sendable {
    case missing
    case file(SceneFile)
    /// Damaged: to quarantine.
    case damaged(SceneFile.Problem)
    /// Written by a newer SceneStore: refused, left as it is.
    case newerVersion(Int)

    /// `stored`, a whole document, decoded and checked as the document of
    /// scene `id`, and where its log ends (``SceneFileReader/read(to:)``).
    /// Pure: a large scene is decoded outside every lock of its store.
    static func decoding(
        _ stored: StoredDocument, as id: SceneID, limits: SceneRegistry.Limits = .largest
    ) -> (result: SceneReadResult, logEnd: LogPosition?) {
        switch stored {
        case .missing: return (.missing, nil)
        case .notADocument(let what): return (.damaged(.malformed(what)), nil)
        // Only ever read after a cursor, which the caller then applies.
        case .continued: return (.damaged(.malformed("the end of a log, not a whole document")), nil)
        case .bytes(let data):
            switch SceneFile.decoded(data) {
            case .success(let read):
                return (Self(decoded: .success(read.file), as: id, limits: limits), read.position(in: data))
            case .failure(let problem):
                return (Self(decoded: .failure(problem), as: id, limits: limits), nil)
            }
        }
    }

    /// `decoded` checked as the document of scene `id`.
    private init(decoded: Result<SceneFile, SceneFile.Problem>, as id: SceneID, limits: SceneRegistry.Limits) {
        switch decoded {
        case .success(let file):
            if let problem = file.problem(asScene: id, limits: limits) {
                self = .damaged(problem)
            } else {
                self = .file(file)
            }
        case .failure(.newerVersion(let version)): self = .newerVersion(version)
        case .failure(let problem): self = .damaged(problem)
        }
    }
}
