import Foundation

/// Everything a ``SceneStore`` holds in memory, guarded by its lock. Each
/// transition is a `mutating func` that decides and enqueues updates; the
/// store delivers them and does I/O after releasing the lock.
struct StoreState: Sendable {
    enum Phase: Sendable {
        /// Registered, its scene still being read: ``SceneRegistry`` hands
        /// it out only once it is open.
        case loading
        case open
        /// `close()` began: sets throw, but what was set before still saves.
        case closing
        case closed
    }

    var phase: Phase
    /// Whether saves may still run: until the close that flushed is done.
    var acceptsSaves: Bool { phase != .closed }
    /// What readers see: the last known disk state with pending edits on top.
    private(set) var values = SceneValues()
    private(set) var byteCount = 0
    private(set) var pending: [String: PendingEdit] = [:]
    private var nextSequence: UInt64 = 0
    /// The scene file as this store last read or wrote it.
    private(set) var diskFile: SceneFile?
    var disk: DiskVersion { diskFile?.version ?? .none }
    /// Where this store's last reading or save left the scene's log.
    var reader = SceneFileReader()
    /// When to save next.
    var saves: SaveSchedule
    /// Read-modify-writes waiting for the store's queue.
    var updates: [QueuedUpdate] = []
    /// A reload waits on the store's queue (``reloadRequested()``).
    private(set) var reloadQueued = false
    var lastQuarantined: QuarantinedScene?
    /// Why loading failed: given to every caller that waited for it.
    var loadFailure: SceneStoreError?
    /// The error of the failing save, while saves fail.
    var lastSaveError: SceneStoreError?
    /// How many background saves in a row failed (for the retry pause).
    var failedSaves = 0
    var broadcast = Broadcast()

    init(savePolicy: SceneRegistry.SavePolicy, phase: Phase = .open) {
        saves = SaveSchedule(policy: savePolicy)
        self.phase = phase
    }

    /// Loading ended: the store opens, or closes with `failure` for every
    /// caller that waited for it.
    mutating func loaded(failure: SceneStoreError?) {
        guard phase == .loading else { return }
        if let failure {
            loadFailure = failure
            close()
        } else {
            phase = .open
        }
    }

    /// "Read the scene again" (a watcher's event, a rescan, a failed
    /// check): whether to queue a reload. Requests coalesce: none while one
    /// is queued and has not started, none once the store is not open.
    mutating func reloadRequested() -> Bool {
        guard phase == .open, !reloadQueued else { return false }
        reloadQueued = true
        return true
    }

    /// The queued reload starts: whether it still has a scene to read (the
    /// store is open). A request from now on queues another.
    mutating func reloadStarts() -> Bool {
        reloadQueued = false
        return phase == .open
    }

    /// The largest values (in ``SceneValues/storedBytes``) that memory and
    /// the held document share after a save.
    static let sharedValuesLimit = 16 << 10

    static func cost(key: String, value: SceneValue?) -> Int {
        guard let value else { return 0 }
        return key.utf8.count + value.byteCount
    }

    /// Applies a local set or remove: an intent to write, whatever this
    /// store believes the disk holds. Its view of a key may be stale
    /// (another process's save it has not seen yet), so a value equal to
    /// the one it shows is still an edit to save; the save writes nothing
    /// when the disk turns out to hold it already. Only an edit equal to
    /// one this store has pending is skipped: that one is on its way.
    /// - Returns: `false` if there is nothing new to save.
    mutating func applyLocal(
        key: String, value: SceneValue?, sceneLimit: Int, scene: SceneID,
        replacing replaces: (@Sendable (SceneValue?) -> Bool)? = nil
    ) throws(SceneStoreError) -> Bool {
        guard phase == .open else { throw .closed(scene: scene.rawValue) }
        let value = value?.canonical
        let place = values.place(of: key)
        let old = values.value(at: place)
        if old == value {
            // An edit on its way, unless it yields to a stored value and this one does not.
            guard pending[key] == nil || (replaces == nil && pending[key]?.replaces != nil) else { return false }
        } else {
            let newCount = byteCount - Self.cost(key: key, value: old) + Self.cost(key: key, value: value)
            if value != nil && newCount > sceneLimit {
                throw .sceneTooLarge(scene: scene.rawValue, key: key, size: newCount, limit: sceneLimit)
            }
            values.set(value, forKey: key, at: place)
            byteCount = newCount
            broadcast.enqueue([.changed([SceneChange(
                key: key, oldValue: old, newValue: value, origin: .local, generation: nil)])])
        }
        nextSequence += 1
        pending[key] = PendingEdit(value: value, sequence: nextSequence, replaces: replaces)
        return true
    }

    /// Drops the pending edits that may not replace what `base` (read
    /// holding the lock) holds under their key: memory takes the stored
    /// value, as if the edit had been made before that value arrived.
    /// - Returns: the keys dropped.
    mutating func dropEditsRefused(by base: SceneFile?, writer: WriterIdentity) -> [String] {
        let refused = pending.filter { key, edit in Self.refuses(edit, key, over: base, writer: writer) }
        guard !refused.isEmpty else { return [] }
        let keys = refused.keys.sorted()
        for key in keys { pending[key] = nil }
        let changes = keys.compactMap {
            take(base?.values[$0], for: $0, origin: .external(writerPID: base?.writer.pid), generation: base?.generation)
        }
        broadcast.enqueue([.changed(changes)])
        return keys
    }

    /// Whether `edit` of `key` may not replace what `base` holds there.
    /// Only a version another process wrote refuses it: when `writer`, this
    /// registry, wrote the latest one, each of its values was this store's
    /// own or merged into memory by that very save, and an edit made since
    /// was checked against memory when it was made (a model's `set` refuses
    /// a newer model memory shows). Without this, a newer model this store
    /// saved, then removed and replaced by an older one (the removal
    /// coalesced into the set), dropped the older one.
    static func refuses(_ edit: PendingEdit, _ key: String, over base: SceneFile?, writer: WriterIdentity) -> Bool {
        guard let replaces = edit.replaces, base?.writer != writer else { return false }
        return !replaces(base?.values[key])
    }

    /// Takes `file` (or, with `nil`, an empty scene) as the disk state:
    /// every key without a pending local edit takes the file's value, and
    /// the differences are enqueued as one update of changes from `origin`.
    mutating func adopt(_ file: SceneFile?, origin: SceneChangeOrigin) {
        diskFile = file
        let incoming = file?.values ?? [:]
        // Find the differences first (one lookup per key), then sort only
        // them: another process's save usually changes one key of many.
        var differing: [String] = []
        var shared = 0
        for (key, new) in incoming {
            let old = values[key]
            if old != nil { shared += 1 }
            if old != new && (pending.isEmpty || pending[key] == nil) {
                differing.append(key)
            }
        }
        // Keys the file no longer has; none when it has every key held.
        if shared < values.count {
            for key in values.keys where incoming[key] == nil && pending[key] == nil {
                differing.append(key)
            }
        }
        let changes = differing.sorted().compactMap {
            take(incoming[$0], for: $0, origin: origin, generation: file?.generation)
        }
        broadcast.enqueue([.changed(changes)])
    }

    /// Memory takes `new` under `key` (not a local edit), and the change
    /// to deliver, if it is one. (Computed before `broadcast.enqueue`,
    /// whose argument is not evaluated when nobody listens.)
    private mutating func take(
        _ new: SceneValue?, for key: String, origin: SceneChangeOrigin, generation: UInt64?
    ) -> SceneChange? {
        let old = values[key]
        guard old != new else { return nil }
        values[key] = new
        byteCount += Self.cost(key: key, value: new) - Self.cost(key: key, value: old)
        return SceneChange(key: key, oldValue: old, newValue: new, origin: origin, generation: generation)
    }

    /// Takes `file` as the state the scene opens with: nothing changed, so
    /// nobody is told.
    mutating func load(_ file: SceneFile) {
        guard values.isEmpty, pending.isEmpty, broadcast.isEmpty else {
            adopt(file, origin: .external(writerPID: file.writer.pid))
            return
        }
        // A store that has nothing yet takes the file as it is: no diff,
        // no updates (a 100 000-key scene opens without sorting its keys).
        diskFile = file
        values = file.values
        byteCount = file.values.reduce(0) { $0 + Self.cost(key: $1.key, value: $1.value) }
    }

    /// Records that `file`, which includes `edits`, is now on disk.
    mutating func saved(_ edits: [String: PendingEdit], as file: SceneFile, over base: SceneFile?) {
        clear(edits)
        if let base, base.version == disk {
            // Written over the version this store held: memory already is
            // that version plus the edits, so there is nothing to compare.
            diskFile = file
            shareValuesWithDisk()
        } else {
            adopt(file, origin: .external(writerPID: base?.writer.pid))
        }
    }

    /// Records that `record`, which includes `edits`, was appended over
    /// `base`, the version this store holds: the held document takes it in
    /// place, without copying its values.
    /// - Returns: `false` when memory moved on from `base` meanwhile (then
    ///   the scene is to be read again).
    mutating func appended(_ edits: [String: PendingEdit], _ record: SceneFileRecord, over base: DiskVersion) -> Bool {
        clear(edits)
        guard base == disk, var file = diskFile else { return false }
        diskFile = nil  // the only reference to its values, so they change in place
        if sharesValues {
            file.values = values
        } else {
            for key in record.removed { file.values.removeValue(forKey: key) }
            for (key, value) in record.set { file.values[key] = value }
        }
        file.generation = record.generation
        file.writer = record.writer
        diskFile = file
        return true
    }

    /// With nothing pending, memory holds exactly what the file holds:
    /// the document held as the disk's takes memory's values, one copy of
    /// the scene rather than two. Only after a save over the version held
    /// (memory is that version with the saved edits on top). A view of
    /// the disk that were wrong would cost no write: an edit equal to what
    /// the held document shows is saved under the lock, over the file read.
    ///
    /// Small scenes only: the next set copies shared values whole (copy on
    /// write), which costs nothing at 100 keys and a copy of the scene at
    /// 10 000, where the two copies are kept instead (memory then holds
    /// about 1.1 times the file).
    private mutating func shareValuesWithDisk() {
        guard sharesValues, var file = diskFile else { return }
        diskFile = nil
        file.values = values
        diskFile = file
    }

    private var sharesValues: Bool {
        pending.isEmpty && values.storedBytes <= Self.sharedValuesLimit
    }

    /// Applies records another process appended to the log after the
    /// version memory holds, as ``adopt(_:origin:)`` would a reading of the
    /// whole file, looking only at the keys they touch. Records memory
    /// already holds (this store's own) are passed over.
    /// - Returns: `false`, changing nothing, when they do not follow the
    ///   version held one generation at a time, or hold a key or value (or
    ///   make a scene) a full reading would find above `limits`: the caller
    ///   then reads the scene whole.
    mutating func adoptRecords(_ records: [SceneFileRecord], limits: SceneRegistry.Limits = .largest) -> Bool {
        guard var file = diskFile else { return false }
        let fresh = records.drop { $0.generation <= file.generation }
        guard !fresh.isEmpty else { return true }
        // Checked first, changing nothing: the order, each key and value,
        // and the scene's size after them (memory's size is the file's
        // when nothing is pending).
        var total = pending.isEmpty ? byteCount : file.values.reduce(0) { $0 + Self.cost(key: $1.key, value: $1.value) }
        var after: [String: SceneValue?] = [:]
        var generation = file.generation
        for record in fresh {
            guard record.generation == generation + 1 else { return false }
            generation = record.generation
            for key in record.removed {
                total -= Self.cost(key: key, value: after[key] ?? file.values[key])
                after[key] = .some(nil)
            }
            for (key, value) in record.set {
                guard SceneStore.keyProblem(key, limit: limits.maxKeyBytes) == nil,
                      value.byteCount <= limits.maxValueBytes else { return false }
                total += Self.cost(key: key, value: value) - Self.cost(key: key, value: after[key] ?? file.values[key])
                after[key] = value
            }
        }
        guard total <= limits.maxSceneBytes else { return false }
        diskFile = nil  // the only reference to its values, so they change in place
        for (key, value) in after { file.values[key] = value }
        if let last = fresh.last {
            file.generation = last.generation
            file.writer = last.writer
        }
        diskFile = file
        let changes = after.keys.sorted().filter { pending[$0] == nil }.compactMap {
            take(file.values[$0], for: $0, origin: .external(writerPID: file.writer.pid), generation: file.generation)
        }
        broadcast.enqueue([.changed(changes)])
        return true
    }

    /// Records that `edits` needed no write: `current`, the scene as it is
    /// on disk (`nil`: no file), already holds every one of them.
    mutating func confirmed(_ edits: [String: PendingEdit], current: SceneFile?) {
        clear(edits)
        if let current, disk.isOlder(than: current.version) {
            adopt(current, origin: .external(writerPID: current.writer.pid))
        }
    }

    /// Clears the pending edits a save took care of, unless the key was
    /// edited again since.
    private mutating func clear(_ edits: [String: PendingEdit]) {
        // Most often nothing was edited since the save took its edits: all
        // go, without a copy of the dictionary the save still shares.
        if pending.count == edits.count, edits.allSatisfy({ pending[$0.key]?.sequence == $0.value.sequence }) {
            pending = [:]
            return
        }
        for (key, edit) in edits where pending[key]?.sequence == edit.sequence {
            pending[key] = nil
        }
    }

    /// The file this store held ended without a discard of it (moved to
    /// quarantine, deleted by hand or with the root, replaced by another
    /// process that found it so): every value memory holds that
    /// `replacement` (the scene's file now; `nil`: none) lacks is written
    /// back, as an edit older than anything stored meanwhile
    /// (``PendingEdit/writeBack(_:sequence:)``): a key another process
    /// wrote since keeps that process's value.
    mutating func writeBack(over replacement: SceneFile?) {
        for (key, value) in values where pending[key] == nil && replacement?.values[key] == nil {
            nextSequence += 1
            pending[key] = .writeBack(value, sequence: nextSequence)
        }
        diskFile = nil
        if let replacement { adopt(replacement, origin: .external(writerPID: replacement.writer.pid)) }
    }

    /// The sequence number of the last local edit: a discard called now
    /// drops the edits up to it, not the ones made while it runs.
    var lastEdit: UInt64 { nextSequence }

    /// This store's discard is done: the pending edits made before it was
    /// called (up to `editsUpTo`, ``lastEdit`` then) are dropped, not those
    /// made while it ran, which are saved as a new scene.
    /// - Returns: the save to schedule for the kept edits.
    mutating func discardedHere(editsUpTo: UInt64, at now: @autoclosure () -> SaveSchedule.Instant) -> SaveSchedule.Action {
        pending = pending.filter { $0.value.sequence > editsUpTo }
        empty(origin: .local)
        return saveRequested(at: now())
    }

    /// Another process discarded the scene: every pending edit is kept (it
    /// cannot be told whether it came before or after the discard, and
    /// dropping a later one would lose an acknowledged write) and saved as
    /// a new scene by the save already scheduled for it.
    mutating func discardedElsewhere() {
        empty(origin: .external(writerPID: nil))
    }

    /// Empties the scene but for the pending sets, and enqueues a
    /// `.discarded` update, then the kept sets again as changes; streams go on.
    private mutating func empty(origin: SceneChangeOrigin) {
        let kept = pending.compactMap { key, edit in edit.value.map { (key, $0) } }.sorted { $0.0 < $1.0 }
        values = SceneValues(kept)
        byteCount = kept.reduce(0) { $0 + Self.cost(key: $1.0, value: $1.1) }
        diskFile = nil
        broadcast.enqueue([.discarded(origin: origin), .changed(kept.map { key, value in
            SceneChange(key: key, oldValue: nil, newValue: value, origin: .local, generation: nil)
        })])
    }

    /// Begins closing: later sets throw, pending edits still save.
    /// - Returns: whether to flush before the streams finish: a store
    ///   that may write (`writable`) saves what was set before.
    mutating func beginClosing(writable: Bool) -> Bool {
        if phase == .open { phase = .closing }
        return writable
    }

    /// Closes the store: what is still pending is dropped (``beginClosing(writable:)``
    /// and a flush first for a graceful close) and every stream finishes.
    mutating func close() {
        phase = .closed
        pending = [:]
        broadcast.finishAll()
    }
}
