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
        /// The directory itself is watched.
        case watching(wd: Int32)
        /// The directory is missing; `ancestor` (watched by `wd`) is the
        /// nearest part of its path that exists.
        case waiting(wd: Int32, ancestor: String)
        /// Missing, and no ancestor could be watched either.
        case unarmed
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
            let wd = try addWatch(directory, .directory).get()
            watched[wd, default: []].insert(directory)
            disarm(directory, &entry)
            entry.arm = .watching(wd: wd)
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
            disarm(directory, &entry)
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
                if rearm(directory) {
                    result += deliveries(.rescan, to: [directory])
                }
            }
        }
        if event.losesTarget || event.dropsWatch {
            let lostDirectories = watched.removeValue(forKey: event.wd) ?? []
            let lostWaiters = waiting.removeValue(forKey: event.wd) ?? []
            if event.losesTarget && !(lostDirectories.isEmpty && lostWaiters.isEmpty) {
                // After IN_MOVE_SELF the watch would follow the inode elsewhere.
                removeWatch(event.wd)
            }
            var rescan = lostDirectories
            for directory in lostDirectories.union(lostWaiters) {
                directories[directory]?.arm = .unarmed
                // A waiting directory may already exist again under a new ancestor.
                if rearm(directory) { rescan.insert(directory) }
            }
            result += deliveries(.rescan, to: Array(rescan))
        }
        return result
    }

    // MARK: - Arming

    private func isWatching(_ directory: String) -> Bool {
        if case .watching? = directories[directory]?.arm { return true }
        return false
    }

    /// Watches `directory` again, or else the nearest existing ancestor.
    /// - Returns: whether the directory itself is watched now.
    @discardableResult
    private mutating func rearm(_ directory: String) -> Bool {
        guard var entry = directories[directory] else { return false }
        var found = walk(from: directory)
        // A path component created before its parent was watched raised no
        // event: walk again until two walks agree.
        while case .waiting(let wd, _) = found {
            let again = walk(from: directory)
            if again == found { break }
            found = again
            releaseIfUnused(wd)
        }
        if found != entry.arm {
            switch found {
            case .watching(let wd): watched[wd, default: []].insert(directory)
            case .waiting(let wd, _): waiting[wd, default: []].insert(directory)
            case .unarmed: break
            }
            disarm(directory, &entry)
            entry.arm = found
            directories[directory] = entry
        }
        if case .watching = found { return true }
        return false
    }

    /// Adds a kernel watch on `directory`, or else on its nearest ancestor
    /// that exists. Records nothing.
    private func walk(from directory: String) -> Arm {
        var path = directory
        while true {
            let role: InotifyWatchRole = path == directory ? .directory : .ancestor
            switch addWatch(path, role) {
            case .success(let wd):
                return role == .directory ? .watching(wd: wd) : .waiting(wd: wd, ancestor: path)
            case .failure(let error):
                guard case .io(_, _, let code) = error, code == .noSuchFileOrDirectory || code == .notDirectory,
                      let parent = Self.parent(of: path) else { return .unarmed }
                path = parent
            }
        }
    }

    /// Forgets how `directory` is watched, releasing a kernel watch that no
    /// other directory uses.
    private mutating func disarm(_ directory: String, _ entry: inout Directory) {
        switch entry.arm {
        case .watching(let wd):
            watched[wd]?.remove(directory)
            if watched[wd]?.isEmpty == true { watched[wd] = nil }
            releaseIfUnused(wd)
        case .waiting(let wd, _):
            waiting[wd]?.remove(directory)
            if waiting[wd]?.isEmpty == true { waiting[wd] = nil }
            releaseIfUnused(wd)
        case .unarmed:
            break
        }
        entry.arm = .unarmed
    }

    private func releaseIfUnused(_ wd: Int32) {
        if watched[wd] == nil && waiting[wd] == nil {
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

    /// `b` for `/a/b/c` below `/a`.
    static func nextComponent(of path: String, below ancestor: String) -> String? {
        let prefix = ancestor.hasSuffix("/") ? ancestor : ancestor + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
    }
}
#endif
