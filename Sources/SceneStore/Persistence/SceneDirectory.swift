import Foundation
import SystemPackage

/// The files of a registry's root directory, and every system call made on
/// them. Layout:
///
/// * `<id>.scene` — the scene file (0600), replaced only by an atomic
///   exchange or `rename`;
/// * `.scenestore.lock` — every lock of the root, a byte each
///   (``RootLock``); never deleted;
/// * `.<id>~tmp-<token>` — a save in progress, then (once exchanged with
///   the scene file) the previous version, unlinked off the critical path;
/// * `.<id>~prev-<token>` — the previous version, kept alive by a hard
///   link across a `rename` where the file system cannot exchange;
/// * `.<id>~discarded` — the tombstone: the incarnations the scene's last
///   discards ended, one per line. A store whose file ended (missing, or
///   another incarnation) lets its values go only if it names the
///   incarnation it held; after any other end it writes them back. Kept
///   while another read-write registry has the root open, whose stores
///   may hold an incarnation that ended;
/// * `.<id>~claim` — a window's quit mark (SceneDirectory+Claims.swift),
///   holding `quit` when its holder quit without changing the records;
/// * `.windows.scene` — the windows' records, a scene like the others
///   (``WindowRecords``) whose id no caller can make;
/// * `quarantine/` — damaged scene files moved aside, never deleted.
///
/// `~` never occurs in a scene id, so a side file names exactly one scene:
/// no id can make its files look like another scene's.
struct SceneDirectory: Sendable {
    static let sceneSuffix = ".scene"
    static let quarantineFolder = "quarantine"
    static let separator = "~"

    let root: URL
    /// `root.path`, taken once: the paths of every save are built from it
    /// by concatenation (building a `URL` costs microseconds each time).
    let rootPath: String
    /// How long a save waits for another process's lock.
    let lockTimeout: Duration
    /// What ``lockTimeout`` is measured on.
    let clock: SceneClock
    /// Every system call on the root's files (a test's may fail, or keep
    /// them elsewhere).
    let system: any FileSystem
    /// The root's locks as this registry holds them.
    let locks: RootLock
    /// What crashed writers left in the root, listed once for a
    /// read-write registry (`nil` until then, and for a read-only one):
    /// at the first reading of a scene, on a thread of the library's own.
    /// Never in the registry's initializer: a root of 100 000 entries takes
    /// most of a second to list. Cleaned by
    /// ``removeLeftoversOnce(of:holdingLock:)``.
    let leftovers: Locked<Leftovers?>
    /// Whether the root's last `fsync` failed (``syncDirectory()``).
    let directoryUnsynced = Locked(false)
    /// The scenes whose file's `fdatasync` failed and could not be written
    /// whole since (``rewrite(_:)``): Linux may have dropped the dirty
    /// pages (it marks them clean after a failed writeback), so no later
    /// sync makes them durable, and a save that finds its values there
    /// must not trust them. Such a scene is written whole before its next
    /// transaction returns, and commits without the lock are refused until
    /// then. (Another process cannot know: a writer that dies before the
    /// rewrite succeeds leaves the record to the kernel.)
    let unsyncedScenes = Locked<Set<SceneID>>([])
    let cleansLeftovers: Bool
    /// Where ``onOwnThread(_:)`` runs work.
    let executor: QueueExecutor

    init(
        root: URL, lockTimeout: Duration = .seconds(10),
        clock: SceneClock = .continuous, system: any FileSystem = LiveFileSystem(),
        cleansLeftovers: Bool = false
    ) {
        self.root = root
        self.rootPath = root.path
        self.lockTimeout = lockTimeout
        self.clock = clock
        self.system = system
        self.locks = RootLock(root: root.path, system: system)
        self.leftovers = Locked(nil)
        self.cleansLeftovers = cleansLeftovers
        self.executor = QueueExecutor(DispatchQueue(label: "SceneStore.root"))
    }

    func scenePath(_ id: SceneID) -> String {
        path(id, prefix: "/", suffix: Self.sceneSuffix)
    }

    private func sidePath(_ id: SceneID, _ suffix: String) -> String {
        path(id, prefix: "/.", suffix: Self.separator + suffix)
    }

    /// `<root><prefix><id><suffix>`, built in one allocation (the paths of
    /// every save are; a chain of `+` allocates once per piece).
    private func path(_ id: SceneID, prefix: String, suffix: String) -> String {
        var path = ""
        path.reserveCapacity(rootPath.utf8.count + prefix.utf8.count + id.rawValue.utf8.count + suffix.utf8.count)
        path += rootPath
        path += prefix
        path += id.rawValue
        path += suffix
        return path
    }

    func tempPath(_ id: SceneID, token: String) -> String { sidePath(id, "tmp-" + token) }
    func previousPath(_ id: SceneID, token: String) -> String { sidePath(id, "prev-" + token) }
    func tombstonePath(_ id: SceneID) -> String { sidePath(id, "discarded") }
    /// The window's quit mark (``FileClaim/markQuit()``), written when a
    /// quit could not change the windows' records; the claim itself is a
    /// byte of the root's lock file.
    func claimPath(_ id: SceneID) -> String { sidePath(id, Self.claimSuffix) }
    static let claimSuffix = "claim"

    /// The scene a root entry belongs to, if it is a scene file.
    static func sceneID(forFileNamed name: String) -> SceneID? {
        guard name.hasSuffix(sceneSuffix), !name.hasPrefix(".") else { return nil }
        return try? SceneID(String(name.dropLast(sceneSuffix.count)))
    }

    /// The scene whose state an event on the root entry `name` may have
    /// changed: its scene file, or its tombstone (a discard). A poller
    /// that never saw a short-lived scene file still sees the tombstone.
    static func sceneID(forEventOn name: String) -> SceneID? {
        if let id = sceneID(forFileNamed: name) { return id }
        let suffix = separator + "discarded"
        guard name.hasPrefix("."), name.hasSuffix(suffix) else { return nil }
        return try? SceneID(String(name.dropFirst().dropLast(suffix.count)))
    }

    // MARK: Root

    /// Creates the root (and missing parents) with mode 0700. While the
    /// root has no lock file yet (no launch got past this on it), every
    /// directory from the root's parent up to `/` is `fsync`ed, so that the
    /// names the `mkdir`s added are durable: without it a power loss soon
    /// after the first launch could take the root and every scene in it, and
    /// a launch that failed half-way (a parent made, its sync failed) would
    /// leave that name undurable for good (found by the simulation).
    func prepare() throws(SceneStoreError) {
        let firstLaunch = (try? system.status(locks.path, followingLinks: false)) == nil
        if let found = try? system.status(rootPath, followingLinks: true) {
            guard found.kind == .directory else {
                throw .io(syscall: "mkdir", path: rootPath, errno: .notDirectory)
            }
        } else {
            var missing: [URL] = []
            var cursor = root.standardizedFileURL
            while (try? system.status(cursor.path, followingLinks: true)) == nil, cursor.path != "/" {
                missing.append(cursor)
                cursor = cursor.deletingLastPathComponent()
            }
            for directory in missing.reversed() {
                try io("mkdir", directory.path, unless: .fileExists) { () throws(Errno) in
                    try system.makeDirectory(directory.path, in: nil)
                }
            }
        }
        guard firstLaunch else { return }
        var parent = root.standardizedFileURL
        repeat {
            parent = parent.deletingLastPathComponent()
            try OpenFile(parent.path, .directory(followingLink: true), system: system).sync()
        } while parent.path != "/"
    }

    /// The root's permission bits when group or others have any access
    /// (as ssh warns about a readable key), else `nil`.
    func looseMode() -> UInt32? {
        guard let mode = (try? system.status(rootPath, followingLinks: true))?.permissions else { return nil }
        return mode & 0o077 == 0 ? nil : mode & 0o777
    }

    /// Marks the root as open by this registry, before it reads any scene
    /// (the shared byte ``RootLock/Range/open``): a discard elsewhere then
    /// keeps the scene's tombstone. `false` where the lock file cannot be
    /// opened or locked.
    func markOpen() -> Bool {
        (try? locks.tryLock(.open, exclusive: false)) == true
    }

    /// Takes `range`, creating the root again (mode 0700) if it was
    /// deleted while the registry was open.
    /// - Throws: ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``
    ///   after `timeout` (the directory's ``lockTimeout`` by default).
    func lock(_ range: RootLock.Range, timeout: Duration? = nil) throws(SceneStoreError) -> RootLock.Held {
        try recreatingRoot { () throws(SceneStoreError) in try locks.lock(range, timeout: timeout ?? lockTimeout, clock: clock) }
        return RootLock.Held(lock: locks, range: range)
    }

    /// `range` if nobody holds it now; `nil` without waiting when another
    /// holder does.
    func lockIfFree(_ range: RootLock.Range) throws(SceneStoreError) -> RootLock.Held? {
        try recreatingRoot { () throws(SceneStoreError) in try locks.tryLock(range) } ? RootLock.Held(lock: locks, range: range) : nil
    }

    private func recreatingRoot<Result>(_ body: () throws(SceneStoreError) -> Result) throws(SceneStoreError) -> Result {
        do {
            return try body()
        } catch .io("open", _, .noSuchFileOrDirectory) {
            try prepare()
            return try body()
        }
    }

    /// The scenes that have a file in the root, listed on a thread of the
    /// library's own (a root of 100 000 entries takes most of a second).
    func sceneIDs() async throws(SceneStoreError) -> [SceneID] {
        try await onOwnThread { () throws(SceneStoreError) in
            try io("opendir", rootPath) { () throws(Errno) in try system.entries(ofDirectory: rootPath) }
                .compactMap(Self.sceneID(forFileNamed:)).sorted()
        }
    }

    /// Runs `work` on the root's own serial queue (``QueueExecutor``, as a
    /// store's I/O runs on the store's): the root's work outside a store's
    /// (window calls, listings) blocks for as long as the disk takes, and
    /// never on Swift's cooperative pool, whose few threads run every task
    /// of the app.
    func onOwnThread<Result, Failure: Error>(
        _ work: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await withTaskExecutorPreference(executor, operation: work)
    }

    // MARK: Writing

    /// Writes `bytes` as the scene file atomically and durably: a new temp
    /// file (`O_CREAT|O_EXCL|O_NOFOLLOW`, 0600), all bytes, `fsync`, an
    /// atomic exchange with the scene file (`renameat2(RENAME_EXCHANGE)`;
    /// where the file system cannot, or on the first save, a hard link
    /// keeping the old version alive and `rename`), `fsync` of the
    /// directory. Call with the scene lock held.
    ///
    /// Freeing the old version's blocks is what a plain rename over it
    /// would wait for (~1 ms with online discard); the exchange frees
    /// nothing, in one system call where link + rename take two.
    ///
    /// - Returns: the name now holding the previous version, for the caller
    ///   to unlink after releasing the lock (``discardPrevious(_:)``).
    func write(_ bytes: Data, for id: SceneID) throws(SceneStoreError) -> String? {
        try write(bytes, to: scenePath(id), of: id)
    }

    /// Replaces `target` (the scene's file or one of its side files) the same way.
    private func write(_ bytes: Data, to target: String, of id: SceneID) throws(SceneStoreError) -> String? {
        let token = randomToken()
        let temp = tempPath(id, token: token)
        // Closed only once the new version is in place (when this
        // returns): closing a written file tells every watcher of the
        // directory (`IN_CLOSE_WRITE`), and waking them before the swap
        // costs the swap ~40 µs here. What makes the bytes durable is the
        // fsync, not the close.
        let file = try create(temp)
        let exchanged: Void?
        do {
            try file.write(bytes)
            try file.sync()
            exchanged = try io("renameat2", target, unless: .noSuchFileOrDirectory, .invalidArgument, .noFunction) {
                () throws(Errno) in try system.exchange(temp, target)
            }
        } catch {
            try? system.unlink(temp)
            throw error
        }
        if exchanged != nil {
            do {
                try syncDirectory()
            } catch {
                // Not durable: the old version goes back under the name
                // (under the lock nobody appended to the new one), so
                // that no process appends to a file whose name a power
                // loss may take.
                if (try? system.exchange(temp, target)) != nil, (try? syncDirectory()) != nil { try? system.unlink(temp) }
                throw error
            }
            return temp
        }
        let previous = previousPath(id, token: token)
        let linked = (try? system.link(target, as: previous)) != nil
        do {
            try io("rename", target) { () throws(Errno) in try system.rename(temp, to: target) }
        } catch {
            try? system.unlink(temp)
            if linked { try? system.unlink(previous) }
            throw error
        }
        do {
            try syncDirectory()
        } catch {
            // As above: the old version back, or no file where there was none.
            let undone = linked ? (try? system.rename(previous, to: target)) != nil : (try? system.unlink(target)) != nil
            if undone { _ = try? syncDirectory() }
            throw error
        }
        return linked ? previous : nil
    }

    /// Unlinks the previous version's link, away from the caller's path
    /// (``FileSystem/unlinkLater(_:)``).
    func discardPrevious(_ previous: String?) {
        if let previous { system.unlinkLater(previous) }
    }

    /// Where ``close()`` waits for them.
    static let cleanupQueue = DispatchQueue(label: "SceneStore.cleanup", qos: .utility)

    /// `fsync`s the root. A failure is remembered until a sync succeeds:
    /// the names a replaced file or a discard changed may not be durable
    /// (a whole write puts the old version back when it can, above), so
    /// every append and transaction of this registry before then syncs the
    /// root again before it returns; otherwise a file whose name was never
    /// durable would take every later commit with it on a power loss
    /// (found by the simulation, seeds 116 and 159).
    func syncDirectory() throws(SceneStoreError) {
        do {
            try OpenFile(rootPath, .directory(followingLink: true), system: system).sync()
            directoryUnsynced.withLock { $0 = false }
        } catch {
            directoryUnsynced.withLock { $0 = true }
            throw error
        }
    }

    /// Creates the new file `path` to write (0600, never through a symbolic link).
    func create(_ path: String) throws(SceneStoreError) -> OpenFile {
        try OpenFile(path, .createNew, system: system)
    }

    /// Removes the scene file (a discard). Call with the scene lock held.
    func removeScene(_ id: SceneID) throws(SceneStoreError) {
        let path = scenePath(id)
        try io("unlink", path, unless: .noSuchFileOrDirectory) { () throws(Errno) in try system.unlink(path) }
        try syncDirectory()
    }

    /// Moves a damaged scene file (or whatever stands in its place) into
    /// `quarantine/`, keeping it as evidence. Call with the scene lock held.
    ///
    /// The folder is never followed if it is a symlink (or anything but a
    /// directory): the move fails with `ELOOP`/`ENOTDIR` and the damaged
    /// file stays where it is.
    func quarantine(_ id: SceneID, reason: String) throws(SceneStoreError) -> URL {
        let folder = root.appendingPathComponent(Self.quarantineFolder, isDirectory: true)
        let rootDirectory = try OpenFile(rootPath, .directory(followingLink: true), system: system)
        try io("mkdir", folder.path, unless: .fileExists) { () throws(Errno) in
            try system.makeDirectory(Self.quarantineFolder, in: rootDirectory.descriptor)
        }
        let folderDirectory = try OpenFile(
            folder.path, .directory(followingLink: false), name: Self.quarantineFolder, in: rootDirectory.descriptor,
            system: system)
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        let name = "\(id.rawValue)-\(stamp)-\(reason)-\(randomToken().prefix(6))\(Self.sceneSuffix)"
        let source = id.rawValue + Self.sceneSuffix
        try io("rename", scenePath(id)) { () throws(Errno) in
            try system.rename(source, in: rootDirectory.descriptor, to: name, in: folderDirectory.descriptor)
        }
        try folderDirectory.sync()
        try rootDirectory.sync()
        return folder.appendingPathComponent(name)
    }

    // MARK: Tombstones

    /// Records that the scene's incarnation `incarnation` was discarded,
    /// atomically and durably, after the last `remembered - 1`. Call with
    /// the scene lock held, before removing the scene file.
    func writeTombstone(_ id: SceneID, incarnation: String, remembered: Int) throws(SceneStoreError) {
        let kept = try discardedIncarnations(id).filter { $0 != incarnation }.suffix(remembered - 1)
        let lines = (kept + [incarnation]).map { $0 + "\n" }.joined()
        let previous = try write(Data(lines.utf8), to: tombstonePath(id), of: id)
        discardPrevious(previous)
    }

    /// The incarnations the scene's tombstone names, oldest first; none
    /// when it is missing or not a regular file (never followed), and at
    /// most what its first 4 KiB hold.
    /// - Throws: when it cannot be read (an I/O error, the open-file
    ///   limit): taken for none, it would bring a discarded scene back.
    func discardedIncarnations(_ id: SceneID) throws(SceneStoreError) -> [String] {
        guard let file = try openToRead(tombstonePath(id)).descriptor(), try file.status().kind == .regular else { return [] }
        return String(decoding: try file.read(at: 0, count: 4096), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Removes the tombstone of a scene just discarded, when no other
    /// read-write registry has the root open. Call holding the scene lock,
    /// after the scene file is gone.
    ///
    /// The tombstone is for a store of another registry that read the
    /// incarnation that ended: every read-write registry marks the root
    /// before its first reading and until it closes (``markOpen()``), and
    /// none does now, so any that opens later reads after the discard and
    /// holds no incarnation (a read-only store never looks at tombstones).
    func removeTombstoneIfAlone(_ id: SceneID) {
        guard locks.isAlone else { return }
        try? system.unlink(tombstonePath(id))
    }
}
