#if os(Linux)
import SystemPackage

// The wd table behind `InotifyWatcher`, in plain Swift: no C in this file.
// Which directory is watched by which watch descriptor, which tokens want
// which directory, and the directories that are waiting to exist again.

/// A handler registered through ``InotifyWatcher/watch(directory:handler:)``.
typealias InotifyHandler = @Sendable (FileWatchEvent) -> Void

/// What a watch descriptor is asked to report.
enum InotifyWatchRole {
    /// Entry events of a watched directory, and its own deletion or move.
    case directory
    /// Subdirectories appearing in the nearest existing ancestor of a watched
    /// directory that is missing, and the ancestor's own deletion or move.
    case ancestor
    /// Subdirectories appearing, deleted or moved in the parent of a
    /// watched directory, and the parent's own deletion or move: a watched
    /// directory that some descriptor holds open gets no `IN_DELETE_SELF`
    /// when it is deleted, but its parent reports the `IN_DELETE` at once.
    case parent
}

/// One event from the kernel, already copied out of the library's buffer and
/// sorted into what the table cares about.
struct InotifyEventRecord {
    var wd: Int32
    var name: String?
    /// `IN_MOVED_TO`, `IN_CLOSE_WRITE`, `IN_DELETE` or `IN_MOVED_FROM` with a name.
    var changesEntry = false
    /// `IN_CREATE` or `IN_MOVED_TO` of a directory.
    var addsSubdirectory = false
    /// `IN_DELETE` or `IN_MOVED_FROM` of a directory.
    var removesSubdirectory = false
    /// `IN_DELETE_SELF`, `IN_MOVE_SELF` or `IN_UNMOUNT`: the watch no longer
    /// stands for its path.
    var losesTarget = false
    /// `IN_IGNORED`: the kernel dropped the watch.
    var dropsWatch = false
    /// `IN_Q_OVERFLOW`: events were lost.
    var overflows = false
}

/// A call the owner thread makes after updating the table.
struct InotifyDelivery {
    var token: UInt64
    var handler: InotifyHandler
    var event: FileWatchEvent
}

/// Which directory each token watches and how each directory is watched.
/// Kept under ``InotifyWatcher``'s lock.
///
/// The kernel calls are injected (`addWatch`, `removeWatch`) so that the
/// bookkeeping stays free of C.
struct InotifyWatchTable {
    /// `inotify_add_watch` for a role: returns the wd or the errno.
    typealias AddWatch = @Sendable (_ path: String, _ role: InotifyWatchRole) -> Result<Int32, SceneStoreError>
    /// `inotify_rm_watch`, silent when the kernel already dropped the watch.
    typealias RemoveWatch = @Sendable (_ wd: Int32) -> Void

    private enum Arm: Equatable {
        /// The directory itself is watched, and its parent (`nil` for `/`)
        /// for its name.
        case watching(wd: Int32, parent: Int32?)
        /// The directory is missing; `ancestor` (watched by `wd`) is the
        /// nearest part of its path that exists.
        case waiting(wd: Int32, ancestor: String)
        /// Not watched yet.
        case unarmed
        /// Neither the directory nor an ancestor could be watched (the
        /// watch limit reached, no permission): its interests are handed
        /// back with this reason.
        case failed(reason: String)

        /// The kernel watches it uses, each with the role it is in.
        var uses: [(role: InotifyWatchRole, wd: Int32)] {
            switch self {
            case .watching(let wd, let parent): [(.directory, wd)] + (parent.map { [(.parent, $0)] } ?? [])
            case .waiting(let wd, _): [(.ancestor, wd)]
            case .unarmed, .failed: []
            }
        }
    }

    private struct Directory {
        var tokens: [UInt64] = []
        var arm: Arm = .unarmed
    }

    private var handlers: [UInt64: (directory: String, handler: InotifyHandler)] = [:]
    private var directories: [String: Directory] = [:]
    /// wd -> directories it watches (one inode can have several paths).
    private var watched: [Int32: Set<String>] = [:]
    /// wd -> missing directories waiting on it as their nearest ancestor.
    private var waiting: [Int32: Set<String>] = [:]
    /// wd -> watched directories it is the parent of.
    private var guarding: [Int32: Set<String>] = [:]

    private let addWatch: AddWatch
    private let removeWatch: RemoveWatch

    init(addWatch: @escaping AddWatch, removeWatch: @escaping RemoveWatch) {
        self.addWatch = addWatch
        self.removeWatch = removeWatch
    }

    var isEmpty: Bool { handlers.isEmpty }

    /// Whether `token` is still registered (a handler may cancel another
    /// token while a batch of deliveries is under way).
    func contains(_ token: UInt64) -> Bool { handlers[token] != nil }

    /// Registers `token` for `directory`, adding a kernel watch unless the
    /// directory is already watched.
    /// - Throws: the error of `inotify_add_watch`; nothing is registered then.
    mutating func add(token: UInt64, directory: String, handler: @escaping InotifyHandler) throws(SceneStoreError) {
        var entry = directories[directory] ?? Directory()
        if case .watching = entry.arm {} else {
            let found = try watchWithParent(directory).get()
            record(found, for: directory, replacing: entry.arm)
            entry.arm = found
        }
        entry.tokens.append(token)
        directories[directory] = entry
        handlers[token] = (directory, handler)
    }

    /// Unregisters `token`; removes the kernel watch when nobody needs it.
    mutating func remove(token: UInt64) {
        guard let (directory, _) = handlers.removeValue(forKey: token),
              var entry = directories[directory] else { return }
        entry.tokens.removeAll { $0 == token }
        if entry.tokens.isEmpty {
            record(.unarmed, for: directory, replacing: entry.arm)
            directories[directory] = nil
        } else {
            directories[directory] = entry
        }
    }

    /// `event` for every registered handler.
    func deliveriesToAll(_ event: FileWatchEvent) -> [InotifyDelivery] {
        deliveries(event, to: Array(directories.keys))
    }

    /// Updates the table for one event and returns the handler calls to make.
    mutating func handle(_ event: InotifyEventRecord) -> [InotifyDelivery] {
        if event.overflows {
            // Appearances may have been lost too: look again for every
            // directory that waits.
            for directory in directories.keys where !isWatching(directory) {
                rearm(directory)
            }
            return deliveries(.rescan, to: Array(directories.keys))
        }
        var result: [InotifyDelivery] = []
        if event.changesEntry, let name = event.name {
            result += deliveries(.changed(name: name), to: Array(watched[event.wd] ?? []))
        }
        if event.addsSubdirectory, let name = event.name {
            for directory in waiting[event.wd] ?? [] {
                guard case .waiting(_, let ancestor)? = directories[directory]?.arm,
                      Self.nextComponent(of: directory, below: ancestor) == name else { continue }
                result += relook(directory)
            }
        }
        if event.addsSubdirectory || event.removesSubdirectory, let name = event.name {
            // A watched directory deleted (perhaps held open), moved away
            // or replaced: watch what is at its path now.
            for directory in guarding[event.wd] ?? [] where Self.lastComponent(of: directory) == name {
                result += relook(directory)
            }
        }
        if event.losesTarget || event.dropsWatch {
            // The watch no longer stands for its path (after IN_MOVE_SELF
            // it would follow the inode elsewhere): every directory that
            // uses it watches what is at its path now, and the watch is
            // removed once none does.
            let users = (watched[event.wd] ?? []).union(waiting[event.wd] ?? []).union(guarding[event.wd] ?? [])
            for directory in users {
                result += relook(directory)
            }
        }
        return result
    }

    // MARK: - Arming

    private func isWatching(_ directory: String) -> Bool {
        if case .watching? = directories[directory]?.arm { return true }
        return false
    }

    private func isWatching(_ arm: Arm) -> Bool {
        if case .watching = arm { return true }
        return false
    }

    /// Watches what is at `directory`'s path now (the directory, or else
    /// its nearest existing ancestor) and returns what its interests are
    /// told: `.rescan` when the directory went missing or is watched anew,
    /// `.unavailable` when nothing could be watched. A watch that no longer stands for its path is never
    /// found again by the walk (the path leads elsewhere, or the kernel
    /// dropped it and hands out a new wd); it is let go once unused.
    private mutating func relook(_ directory: String) -> [InotifyDelivery] {
        guard let before = directories[directory]?.arm else { return [] }
        switch rearm(directory) {
        case .failed(let reason): return deliveries(.unavailable(reason: reason), to: [directory])
        case before: return []
        // Still missing, waiting on another ancestor: nothing to read anew.
        case .waiting where !isWatching(before): return []
        default: return deliveries(.rescan, to: [directory])
        }
    }

    /// Watches `directory` again, or else the nearest existing ancestor.
    /// - Returns: how it is watched now.
    @discardableResult
    private mutating func rearm(_ directory: String) -> Arm {
        guard var entry = directories[directory] else { return .unarmed }
        var found = walk(from: directory)
        // A path component created before its parent was watched raised no
        // event: walk again until two walks agree.
        while case .waiting(let wd, _) = found {
            let again = walk(from: directory)
            if again == found { break }
            found = again
            if !again.uses.contains(where: { $0.wd == wd }) { releaseIfUnused(wd) }
        }
        if found != entry.arm {
            record(found, for: directory, replacing: entry.arm)
            entry.arm = found
            directories[directory] = entry
        }
        return found
    }

    /// Watches `directory`, which must exist, and its parent.
    /// Records nothing.
    private func watchWithParent(_ directory: String) -> Result<Arm, SceneStoreError> {
        let wd: Int32
        switch addWatch(directory, .directory) {
        case .success(let added): wd = added
        case .failure(let error): return .failure(error)
        }
        guard let parent = Self.parent(of: directory) else { return .success(.watching(wd: wd, parent: nil)) }
        switch addWatch(parent, .parent) {
        case .success(let parentWD):
            return .success(.watching(wd: wd, parent: parentWD))
        case .failure(let error):
            releaseIfUnused(wd)
            return .failure(error)
        }
    }

    /// Adds kernel watches on `directory` and its parent, or else on its
    /// nearest ancestor that exists. Records nothing.
    private func walk(from directory: String) -> Arm {
        var path = directory
        while true {
            let added = path == directory
                ? watchWithParent(path)
                : addWatch(path, .ancestor).map { Arm.waiting(wd: $0, ancestor: path) }
            switch added {
            case .success(let arm):
                return arm
            case .failure(let error):
                guard case .io(_, _, let code) = error, code == .noSuchFileOrDirectory || code == .notDirectory,
                      let parent = Self.parent(of: path) else {
                    return .failed(reason: "cannot watch \(path) for \(directory): \(error)")
                }
                path = parent
            }
        }
    }

    /// Records that `directory` is watched as `arm` says, no longer as
    /// `previous`, releasing the kernel watches that nothing uses any more.
    private mutating func record(_ arm: Arm, for directory: String, replacing previous: Arm) {
        for use in arm.uses {
            members(use.role) { $0[use.wd, default: []].insert(directory) }
        }
        let kept = arm.uses
        for use in previous.uses where !kept.contains(where: { $0.role == use.role && $0.wd == use.wd }) {
            members(use.role) { map in
                map[use.wd]?.remove(directory)
                if map[use.wd]?.isEmpty == true { map[use.wd] = nil }
            }
            releaseIfUnused(use.wd)
        }
    }

    /// Changes the map of the directories that use a wd in `role`.
    private mutating func members(_ role: InotifyWatchRole, _ change: (inout [Int32: Set<String>]) -> Void) {
        switch role {
        case .directory: change(&watched)
        case .ancestor: change(&waiting)
        case .parent: change(&guarding)
        }
    }

    private func releaseIfUnused(_ wd: Int32) {
        if watched[wd] == nil && waiting[wd] == nil && guarding[wd] == nil {
            removeWatch(wd)
        }
    }

    private func deliveries(_ event: FileWatchEvent, to directories: [String]) -> [InotifyDelivery] {
        directories.flatMap { directory in
            (self.directories[directory]?.tokens ?? []).compactMap { token in
                handlers[token].map { InotifyDelivery(token: token, handler: $0.handler, event: event) }
            }
        }
    }

    // MARK: - Paths

    /// `/a/b` for `/a/b/c`, `/` for `/a`, nil for `/`.
    static func parent(of path: String) -> String? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `c` for `/a/b/c`.
    static func lastComponent(of path: String) -> String? {
        path.split(separator: "/").last.map(String.init)
    }

    /// `b` for `/a/b/c` below `/a`.
    static func nextComponent(of path: String, below ancestor: String) -> String? {
        let prefix = ancestor.hasSuffix("/") ? ancestor : ancestor + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
    }
}
#endif
