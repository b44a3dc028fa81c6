import Foundation

extension SceneStore {
    /// Deletes the scene's file and empties the store; its streams get a
    /// `.discarded` event and go on. Edits made before the call are
    /// dropped, later ones (also those made while the discard waits for
    /// the lock) create the scene again.
    ///
    /// Under the scene lock: a tombstone recording the incarnation that
    /// ends is written first, then the scene file is removed, so another
    /// process tells this discard from a file that vanished; on the file
    /// root the tombstone goes when no other registry can need it
    /// (``SceneDirectory/removeTombstoneIfAlone(_:)``).
    func discard() async throws {
        guard !configuration.readOnly else { throw SceneStoreError.readOnly(scene: id.rawValue) }
        let editsUpTo = state.withLock { $0.lastEdit }
        try await io.run { () async throws(SceneStoreError) in
            let lastSeen = state.withLock { $0.disk.incarnation }
            try await storage.transaction(id) { (transaction) async throws(SceneStoreError) in
                try await transaction.discard(lastSeen: lastSeen)
            }
            perform(mutate { $0.discardedHere(editsUpTo: editsUpTo, at: clock.now) })
        }
    }

    /// Closes the store gracefully. First every model binding on it hands
    /// over the edits its model made so far (read from the model itself,
    /// not left to the next Observation turn). From then on, sets throw
    /// ``SceneStoreError/closed(scene:)``; every set that returned before
    /// is saved (a read-only store has none); then streams finish.
    /// - Throws: the save's error (the unsaved values are then lost with
    ///   the store: the caller was told).
    func close() async throws {
        await bindingDrains.settleAll()
        let flushes = state.withLock { $0.beginClosing(writable: !configuration.readOnly) }
        defer { mutate { $0.close() } }
        if flushes { try await flush() }
    }

    /// Drops everything in memory without saving, as `kill -9` would.
    func abandon() {
        mutate { $0.close() }
    }
}
