import Foundation

extension SceneStore {
    /// Loads the scene file on open (on the caller's thread: opening is the
    /// one call that reads the disk synchronously). Cleans leftovers of
    /// crashed writers when `cleanLeftovers`; moves a damaged file to
    /// quarantine and starts empty.
    func load(cleanLeftovers: Bool) throws(SceneStoreError) {
        if cleanLeftovers {
            let lock = try directory.lock(id)
            directory.removeLeftovers(of: id)
            lock.unlock()
        }
        switch try directory.read(id) {
        case .missing:
            break
        case .file(let file):
            state.withLock { $0.load(file) }
        case .newerVersion(let version):
            throw .unsupportedFormat(scene: id.rawValue, version: version, path: directory.sceneURL(id).path)
        case .damaged:
            if let file = try recoverDamagedFile() {
                state.withLock { $0.load(file) }
            }
        }
    }

    /// Under the scene lock, reads the file again and, if it is still
    /// damaged, moves it to quarantine and records the recovery.
    /// - Returns: the file, if another writer replaced it meanwhile.
    func recoverDamagedFile() throws(SceneStoreError) -> SceneFile? {
        let lock = try directory.lock(id)
        defer { lock.unlock() }
        let problem: SceneFile.Problem
        switch try directory.read(id) {
        case .file(let file): return file
        case .missing: return nil
        case .newerVersion(let version):
            throw .unsupportedFormat(scene: id.rawValue, version: version, path: directory.sceneURL(id).path)
        case .damaged(let found): problem = found
        }
        try quarantineDamagedFile(problem)
        return nil
    }

    /// Moves the damaged scene file to quarantine and reports it. Call with
    /// the scene lock held.
    func quarantineDamagedFile(_ problem: SceneFile.Problem) throws(SceneStoreError) {
        let reason: String
        switch problem {
        case .malformed: reason = "malformed"
        case .badChecksum: reason = "bad-checksum"
        case .newerVersion: reason = "newer-version"
        }
        let destination = try directory.quarantine(id, reason: reason)
        let recovery = SceneRecovery(scene: id, reason: "\(problem)", quarantinedFile: destination.path)
        logger.warning("damaged scene file moved to quarantine; the scene starts empty", metadata: [
            "scene": "\(id)", "problem": "\(problem)", "quarantined": "\(destination.path)",
        ])
        state.withLock {
            $0.lastRecovery = recovery
            $0.broadcast.enqueue([.recovered(recovery)])
        }
        state.deliver(\.broadcast)
    }

    // MARK: Saving

    func scheduleSave() {
        switch configuration.savePolicy {
        case .writeThrough:
            io.async { self.saveInBackground() }
        case .coalesced(let window):
            io.asyncAfter(deadline: .now() + window.dispatchInterval) { self.saveInBackground() }
        case .onFlush:
            state.withLock { $0.saveScheduled = false }
        }
    }

    private func saveInBackground() {
        do {
            try saveNow()
        } catch {
            logger.error("save failed; the values stay in memory and are retried", metadata: [
                "scene": "\(id)", "error": "\(error)",
            ])
            let retry = state.withLock { state -> Bool in
                guard state.phase == .open, !state.pending.isEmpty, !state.saveScheduled else { return false }
                state.saveScheduled = true
                return true
            }
            if retry {
                io.asyncAfter(deadline: .now() + .seconds(1)) { self.saveInBackground() }
            }
        }
    }

    /// Saves the pending edits, merged over whatever is on disk now:
    /// lock, read, apply pending sets and removes, write generation + 1
    /// atomically, unlock. Runs on ``io``.
    func saveNow() throws(SceneStoreError) {
        dispatchPrecondition(condition: .onQueue(io))
        let known = state.withLock { state -> SceneFile?? in
            state.saveScheduled = false
            guard state.phase == .open, !state.pending.isEmpty else { return nil }
            return .some(state.diskFile)
        }
        guard let known else { return }
        let lock = try directory.lock(id)
        let base: SceneFile?
        do throws(SceneStoreError) {
            base = try currentFile(known: known)
        } catch {
            lock.unlock()
            throw error
        }
        // Taken after reading the file: a recovery there marks every value pending.
        let edits = state.withLock { $0.pending }
        var values = base?.values ?? [:]
        for (key, edit) in edits {
            values[key] = edit.value
        }
        let file = SceneFile(
            scene: id.rawValue,
            generation: (base?.generation ?? 0) + 1,
            incarnation: base?.incarnation ?? randomToken(),
            writer: writer,
            values: values
        )
        let previous: URL?
        do throws(SceneStoreError) {
            previous = try directory.write(file.encoded(), for: id)
        } catch {
            lock.unlock()
            throw error
        }
        lock.unlock()
        SceneDirectory.discardPrevious(previous)
        state.withLock { $0.saved(edits, as: file, over: base) }
        state.deliver(\.broadcast)
    }

    /// The scene file as it is now, for a save holding the lock: `known`
    /// when the header shows the version this store already has (no
    /// decoding), else the decoded file; a damaged file is moved to
    /// quarantine first and the store's values are all written again.
    private func currentFile(known: SceneFile?) throws(SceneStoreError) -> SceneFile? {
        let data: Data
        switch try directory.readBytes(id) {
        case .missing:
            return nil
        case .notRegular(let what):
            return try recoverAndRewriteAll(.malformed(what))
        case .bytes(let bytes):
            data = bytes
        }
        if let known, SceneFile.peekVersion(data) == known.version {
            return known
        }
        switch SceneDirectory.interpret(data) {
        case .missing:
            return nil
        case .file(let file):
            return file
        case .newerVersion(let version):
            throw .unsupportedFormat(scene: id.rawValue, version: version, path: directory.sceneURL(id).path)
        case .damaged(let problem):
            return try recoverAndRewriteAll(problem)
        }
    }

    /// With the lock held: quarantines the damaged file and marks every
    /// value pending, so the save that follows writes the whole scene.
    private func recoverAndRewriteAll(_ problem: SceneFile.Problem) throws(SceneStoreError) -> SceneFile? {
        try quarantineDamagedFile(problem)
        state.withLock { $0.markAllPending() }
        return nil
    }

    /// Returns once every value set before the call is durable on disk.
    ///
    /// - Throws: ``SceneStoreError`` when the save fails (full disk, a file
    ///   of a newer format, ...); the values stay in memory and the next
    ///   save or flush tries again.
    public func flush() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            io.async {
                do {
                    try self.saveNow()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    // MARK: Reloading

    /// Re-reads the scene file soon, on ``io`` (coalescing repeated calls).
    func scheduleReload() {
        let enqueue = state.withLock { state -> Bool in
            guard state.phase == .open, !state.reloadQueued else { return false }
            state.reloadQueued = true
            return true
        }
        if enqueue { io.async { self.reloadNow() } }
    }

    /// Applies what another process wrote: reads without the lock (rename is
    /// atomic), ignores versions this store already has (its own saves),
    /// keeps keys with a pending local edit.
    func reloadNow() {
        dispatchPrecondition(condition: .onQueue(io))
        guard state.withLock({ state -> Bool in
            state.reloadQueued = false
            return state.phase == .open
        }) else { return }
        do {
            let result: SceneDirectory.ReadResult
            switch try directory.readBytes(id) {
            case .missing:
                result = .missing
            case .notRegular(let what):
                result = .damaged(.malformed(what))
            case .bytes(let data):
                // Our own save, or a version already applied: no decoding.
                if let version = SceneFile.peekVersion(data),
                   !state.withLock({ $0.disk.isOlder(than: version) }) {
                    return
                }
                result = SceneDirectory.interpret(data)
            }
            switch result {
            case .missing:
                state.withLock { state in
                    guard state.disk.incarnation != nil else { return }
                    state.discard(origin: .external(writerPID: nil))
                }
            case .file(let file):
                state.withLock { state in
                    guard state.disk.isOlder(than: file.version) else { return }
                    state.adopt(file, origin: .external(writerPID: file.writer.pid))
                }
            case .newerVersion(let version):
                logger.error("another process wrote a newer scene format; not reloading", metadata: [
                    "scene": "\(id)", "version": "\(version)",
                ])
            case .damaged:
                if let file = try recoverDamagedFile() {
                    state.withLock { $0.adopt(file, origin: .external(writerPID: file.writer.pid)) }
                } else {
                    state.withLock { $0.markAllPending() }
                    try saveNow()
                }
            }
        } catch {
            logger.error("reload failed", metadata: ["scene": "\(id)", "error": "\(error)"])
        }
        state.deliver(\.broadcast)
    }

    // MARK: Discarding and closing

    /// Deletes the scene's file and empties the store; its streams get a
    /// `.discarded` event and finish. The store stays usable: a later set
    /// creates the scene again.
    func discard() async throws {
        try await onIO { () throws in
            let lock = try self.directory.lock(self.id)
            defer { lock.unlock() }
            try self.directory.removeScene(self.id)
            lock.removeFile()
            self.state.withLock { $0.discard(origin: .local) }
            self.state.deliver(\.broadcast)
        }
    }

    /// Flushes, then closes: later sets throw, streams finish.
    func close() async throws {
        defer {
            state.withLock { $0.close() }
            state.deliver(\.broadcast)
        }
        try await flush()
    }

    /// Drops everything in memory without saving, as `kill -9` would.
    func abandon() {
        state.withLock { $0.close() }
        state.deliver(\.broadcast)
    }

    private func onIO(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            io.async {
                do {
                    try work()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
