/// A change heard of, decided without I/O: read where it was heard of, or
/// on the store's queue (``reloadRequested()``).
extension StoreState {
    /// What a watcher's "the scene may have changed" leads to, when it
    /// was not this store's own write.
    enum HeardChange: Equatable {
        /// Read it right where it was heard of, if the store is idle.
        case readHere
        /// A reading was queued.
        case readQueued
        /// One is queued already, or the store is not open.
        case nothing
    }

    /// The largest scene (in value bytes) read where a change is heard of
    /// (the watcher's thread).
    static let inlineReloadBytes = 64 * 1024

    /// A change was heard of: a small open scene on a storage whose reads
    /// are local (`readsLocally`: they block their thread, briefly) is read
    /// right there, which applies it before any other work of the store
    /// can run; anything else is read on the store's queue.
    mutating func changeHeard(readsLocally: Bool) -> HeardChange {
        if readsLocally, phase == .open, byteCount <= Self.inlineReloadBytes { return .readHere }
        return reloadRequested() ? .readQueued : .nothing
    }
}
