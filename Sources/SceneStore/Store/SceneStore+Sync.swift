import Foundation
import Logging

/// Reading the scene's document: the store reads, ``StoreState`` decides
/// what the reading means (``StoreState/read(_:at:writable:)``), the store
/// carries out the verdict. Every path that reads (opening, a reload after
/// a watcher's event, the read before a save, an update or a discard) goes
/// through ``synchronize(_:in:)``.
extension SceneStore {
    /// Runs `body` on the state and then delivers what it enqueued, outside
    /// the lock: no transition can forget to tell the streams.
    @discardableResult
    func mutate<Result, Failure: Error>(_ body: (inout StoreState) throws(Failure) -> Result) throws(Failure) -> Result {
        // Most changes have nobody to tell: then the lock is not taken a
        // second time. (A body that throws delivers what it enqueued.)
        var waiting = true
        defer { if waiting { state.deliver(\.broadcast) } }
        return try state.withLock { (state) throws(Failure) in
            let result = try body(&state)
            waiting = state.broadcast.hasDeliveries
            return result
        }
    }

    /// How a ``synchronize(_:in:)`` ended.
    enum Synchronized {
        /// Memory reflects the document; `base` is the document to save
        /// over (`nil`: there is none).
        case settled(base: SceneFile?)
        /// The reading needs another look holding the lock.
        case needsLock

        var base: SceneFile? {
            if case .settled(let base) = self { return base }
            return nil
        }
    }

    /// Reads the scene's document, lets the state decide what it means and
    /// carries the decision out.
    /// - Parameters:
    ///   - transaction: the scene's lock, held by the caller; with one, the
    ///     result is always ``Synchronized/settled(base:)``.
    /// - Throws: ``SceneStoreError/unsupportedFormat(scene:version:path:)``
    ///   for a document of a newer format (left as it is), or the storage's
    ///   error.
    func synchronize(
        _ site: ReadSite, in transaction: (any SceneStorageTransaction)?
    ) async throws(SceneStoreError) -> Synchronized {
        let site = transaction == nil ? site : site.lockTaken
        let cursor = state.withLock { $0.cursor(site) }
        var stored = try await read(after: cursor, in: transaction)
        if case .continued(let tail) = stored, let cursor {
            if applyRecords(in: tail, after: cursor) { return .settled(base: state.withLock { $0.diskFile }) }
            stored = try await read(after: nil, in: transaction)
        }
        let reading = SceneReadResult.decoding(stored, as: id)
        let writable = !configuration.readOnly
        switch mutate({ $0.read(reading.result, logEnd: reading.logEnd, at: site, writable: writable) }) {
        case .settled(let base):
            return .settled(base: base)
        case .refuse(let version):
            throw .unsupportedFormat(scene: id.rawValue, version: version, path: storage.location(of: id))
        case .leaveDamaged(let problem):
            logger.warning("damaged scene file left in place (read-only); the store keeps what it holds", metadata: [
                "scene": "\(id)", "problem": "\(problem)",
            ])
            return .settled(base: nil)
        case .lookHoldingLock:
            // Only ever said without the lock.
            return .needsLock
        case .checkDiscard(let replacement, let logEnd):
            guard let transaction else { return .needsLock }
            let held = state.withLock { $0.disk.incarnation }
            let discarded = if let held { try await transaction.discarded(held) } else { false }
            if mutate({ $0.ended(discarded: discarded, replacement: replacement, logEnd: logEnd) }) == .vanished {
                logger.warning("scene file ended without a discard; writing back from memory what the scene lacks", metadata: [
                    "scene": "\(id)", "replaced": "\(replacement != nil)",
                ])
            }
            return .settled(base: replacement)
        case .quarantine(let problem):
            guard let transaction else { return .needsLock }
            let recovery = try await quarantine(problem, in: transaction)
            mutate { $0.quarantined(recovery) }
            return .settled(base: nil)
        }
    }

    /// The scene's document, or what follows `cursor`, holding the lock
    /// when `transaction` is given.
    private func read(
        after cursor: LogPosition?, in transaction: (any SceneStorageTransaction)?
    ) async throws(SceneStoreError) -> StoredDocument {
        if let transaction { return try await transaction.read(after: cursor) }
        return try await storage.read(id, after: cursor)
    }

    /// Applies the records in `tail`, what the storage found after
    /// `cursor` where the last reading ended (the log's end after what
    /// other processes appended since), looking at the keys they touch
    /// only: a change to one key of 10 000 costs what it costs in a scene
    /// of one.
    /// - Returns: `false` when they cannot be (a torn tail, records that
    ///   do not follow, a limit): the scene is then read whole.
    private func applyRecords(in tail: Data, after cursor: LogPosition) -> Bool {
        // Parsed outside the lock, which a `set` takes.
        guard let (records, end) = SceneFileReader.records(in: tail, after: cursor) else { return false }
        return mutate { state in
            // Nothing else moved the position meanwhile (all of it runs on ``io``).
            guard state.reader.position == cursor, state.adoptRecords(records) else { return false }
            state.reader.advance(to: cursor.advanced(over: records, to: end))
            return true
        }
    }

    /// Moves the damaged document to quarantine (the lock held). A
    /// quarantine folder that is not a real directory (a symlink) is never
    /// followed: the damaged file stays and the error is thrown and logged.
    private func quarantine(
        _ problem: SceneFile.Problem, in transaction: any SceneStorageTransaction
    ) async throws(SceneStoreError) -> QuarantinedScene {
        let destination: String
        do throws(SceneStoreError) {
            destination = try await transaction.quarantine(reason: problem.reason)
        } catch {
            logger.error("damaged scene file could not be moved to quarantine; left in place", metadata: [
                "scene": "\(id)", "problem": "\(problem)", "error": "\(error)",
            ])
            throw error
        }
        logger.warning("damaged scene file moved to quarantine", metadata: [
            "scene": "\(id)", "problem": "\(problem)", "quarantined": "\(destination)",
        ])
        return QuarantinedScene(reason: "\(problem)", quarantinedFile: destination)
    }

    // MARK: Opening and reloading

    /// Loads the scene on open, holding ``io`` since the store was made,
    /// and lets go of it. A damaged file is moved to quarantine and the
    /// scene starts empty (other processes that hold the scene write it
    /// again from their memory).
    func load() async throws(SceneStoreError) {
        try await io.runClaimed { () async throws(SceneStoreError) in
            do throws(SceneStoreError) {
                if case .needsLock = try await synchronize(.opening, in: nil) {
                    _ = try await storage.transaction(id) { (transaction) async throws(SceneStoreError) in
                        try await synchronize(.opening, in: transaction)
                    }
                }
            } catch {
                mutate { $0.loaded(failure: error) }
                throw error
            }
            mutate { $0.loaded(failure: nil) }
        }
    }

    /// For a caller that found the store registered by another: returns
    /// once its load has ended (the load holds ``io`` from the start),
    /// throwing what the load threw.
    func awaitLoad() async throws(SceneStoreError) {
        let failure = await io.run { state.withLock { $0.loadFailure } }
        if let failure { throw failure }
    }

    /// The watcher's "this scene may have changed", on its thread: a small
    /// scene on a local storage is read right here when the store's
    /// executor is idle (the reading is then applied before any other work
    /// of the store can run); anything else, or anything that needs the
    /// lock, is re-read on the store's queue.
    func sceneMayHaveChanged() {
        // First, and without the store's state lock, which its saves take:
        // most events of a scene a store saves are its own records.
        if logEndsWhereThisStoreLeftIt() { return }
        switch state.withLock({ $0.changeHeard(readsLocally: storage.workExecutor == nil) }) {
        case .nothing:
            break
        case .readQueued:
            io.submit { await self.reloadNow() }
        case .readHere:
            let ran = io.runIfIdle {
                if case .settled? = try? await self.synchronize(.withoutLock, in: nil) { return }
                self.scheduleReload()
            }
            // Busy: most often with this store's own save, whose record the
            // watcher reports before the save ends. Queued behind it, the
            // reading finds the log ending where the save left it and reads
            // nothing more (``applyRecords(in:after:)``).
            if !ran { scheduleReload() }
        }
    }

    /// Whether the scene's log ends where this store's own record, being
    /// appended now, ends it, or where its last reading ended: then the
    /// event was this store's own save (or nothing new), and the few bytes
    /// read here (the file's head and its log's end) are all it costs.
    /// The watcher reports a record before its save has ended, often
    /// while the store's next save runs; reading it back took a quarter
    /// of a commit's time.
    private func logEndsWhereThisStoreLeftIt() -> Bool {
        // Not waited for: a transition adopting a large scene holds the
        // lock for as long as it compares it, and the watcher's thread
        // serves every store of the process. Only two positions are copied.
        guard let (own, position) = state.withLockIfAvailable({ state in
            // A reading of nothing after the position settles it only over
            // a document memory holds (``StoreState/adoptRecords(_:limits:)``).
            (state.reader.ownAppend, state.diskFile == nil ? nil : state.reader.position)
        }) else { return false }
        if let own, storage.logEnds(id, at: own) { return true }
        guard let position else { return false }
        return storage.logEnds(id, at: position)
    }

    /// Re-reads the scene soon, on ``io`` (coalescing repeated calls).
    func scheduleReload() {
        if state.withLock({ $0.reloadRequested() }) { io.submit { await self.reloadNow() } }
    }

    /// Applies what another process wrote: reads without the lock what
    /// follows the last reading (a document is replaced whole). A missing or damaged document is looked at
    /// again under the lock, where it cannot be half-way through another
    /// process's quarantine, and whatever memory holds that the document
    /// lost is written again before the lock is let go: no other process
    /// sees the scene missing in between.
    func reloadNow() async {
        guard state.withLock({ $0.reloadStarts() }) else { return }
        do throws(SceneStoreError) {
            guard case .needsLock = try await synchronize(.withoutLock, in: nil) else { return }
            let written = try await storage.transaction(id) { (transaction) async throws(SceneStoreError) -> StoreState.SavedWrite? in
                try await saveHoldingLock(transaction)
            }
            record(written)
        } catch {
            logger.warning("reload failed", metadata: ["scene": "\(id)", "error": "\(error)"])
            // What a recovery marked for writing is never left unscheduled.
            perform(state.withLock { $0.saveRequested(at: clock.now) })
        }
    }
}
