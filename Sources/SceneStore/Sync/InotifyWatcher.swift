#if os(Linux)
internal import CInotifyTools
import SystemPackage
import Foundation
import Glibc
import Logging

/// The libinotifytools watcher: one per process, on its own thread.
///
/// libinotifytools keeps process-global state and is not thread-safe, so this
/// type is the only code that touches it (and the only file that imports
/// `CInotifyTools`), and no two calls into it ever run at once: a session of
/// the library is opened under the watcher's lock, read only by the *owner
/// thread*, and closed by that thread under the lock.
///
/// ## Lifecycle
/// The first ``watch(directory:handler:)`` initialises the library, watches a
/// private *wake file* through it (an unlinked temporary file kept open,
/// watched for `IN_ATTRIB`), finds the library's inotify descriptor by that
/// watch (``LibrarySession/open(logger:)``), marks it close-on-exec and starts the
/// owner thread, which waits in `inotifytools_next_event`: a blocking `select`
/// with no timeout, so an idle watcher uses no CPU. Cancelling the last
/// interest touches the wake file (`futimens`); the thread wakes, finds no
/// interest left, drains and closes the library (`inotifytools_cleanup`) and
/// the wake file under the lock, and exits; a later `watch` opens a new
/// session. If `inotifytools_next_event` fails, every handler gets
/// ``FileWatchEvent/unavailable(reason:)``, its interest is dropped and the
/// thread stops the same way (the file root then re-reads its scenes on a timer
/// directories): the library is not reopened.
///
/// ## Watches
/// The library is used to create the inotify instance, to read and frame
/// events, and to close it. Watches are added and removed with
/// `inotify_add_watch`/`inotify_rm_watch` on the library's descriptor (plain
/// system calls, safe beside a reader on another thread) and tracked in this
/// type's own wd table: the library's watch table is keyed by file name,
/// cannot represent a directory that was deleted and re-created, hands out
/// stale descriptors for it, and prints to stderr when removing a watch the
/// kernel already dropped. Each directory gets
/// `IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM` (reported as
/// ``FileWatchEvent/changed(name:)``) plus `IN_DELETE_SELF | IN_MOVE_SELF`,
/// always with `IN_MASK_ADD | IN_ONLYDIR`; its parent gets
/// `IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM` (for the
/// directory's name) plus `IN_DELETE_SELF | IN_MOVE_SELF`. Several interests
/// in one directory share one kernel watch.
///
/// ## A watched directory that disappears
/// When a watched directory is deleted, moved away or replaced, its handlers
/// get ``FileWatchEvent/rescan`` at once and the interest stays registered:
/// the watcher then watches the nearest existing ancestor for the missing
/// path component (`IN_CREATE | IN_MOVED_TO`, no polling). When the
/// directory exists again it is watched again and its handlers get one more
/// ``FileWatchEvent/rescan``. The parent's events tell it even while a
/// descriptor holds the deleted directory (a registry holds its root open),
/// when the kernel sends no `IN_DELETE_SELF`. A directory that cannot be
/// watched again, nor any ancestor (the watch limit reached, no
/// permission), is handed back with ``FileWatchEvent/unavailable(reason:)``
/// and its interest dropped (the file root then re-reads its scenes on a timer).
/// `IN_Q_OVERFLOW` delivers ``FileWatchEvent/rescan`` to every handler.
///
/// ## Threads
/// One lock guards the session and the wd table; the library is opened and
/// closed, and kernel watches are added and removed, holding it. `watch` and
/// `cancel` may be called from any thread, including from a handler, and
/// never wait for the owner thread to wake; `cancel` from another thread
/// waits for the batch of handler calls in progress, if any. The owner thread
/// looks each event up under the lock too, so an event of a watch just added
/// is never looked up before the table knows its wd. Handlers run on the
/// owner thread, one at a time, outside that lock.
package final class InotifyWatcher: FileWatcher {
    /// The process-wide instance.
    package static let shared = InotifyWatcher()

    struct State {
        /// The open library session and its wd table; `nil` while no owner
        /// thread runs.
        var running: (session: LibrarySession, table: InotifyWatchTable)?
        /// The owner thread, which handlers run on.
        var owner: pthread_t?
        var lastTokenID: UInt64 = 0
    }

    /// The session and the wd table: the one lock of the Threads section.
    let state = Locked(State())
    /// Held by the owner thread while it delivers a batch of events; `cancel`
    /// waits for it. A bare `NSLock`, the kind `Locked` uses, as it guards no
    /// value: ThreadSanitizer reports a `Locked<Void>`'s empty value as raced.
    let delivering = NSLock()
    let logger = Logger(label: "SceneStore.InotifyWatcher")

    private init() {}

    package var kind: WatcherKind { .inotify }

    /// Starts delivering events about the entries of `directory` to `handler`.
    ///
    /// Returns once the kernel watch is in place (a few tens of microseconds,
    /// even while the owner thread waits for events; the first call also
    /// opens the library and starts the thread). Events for changes made
    /// after the return are delivered.
    ///
    /// - Parameters:
    ///   - directory: an existing directory.
    ///   - handler: called on the owner thread; must return quickly.
    /// - Returns: the token to pass to ``cancel(_:)``.
    /// - Throws: ``SceneStoreError/watcherUnavailable(reason:)`` when inotify
    ///   cannot serve (instance or watch limit reached, descriptor above 1023,
    ///   the library failed) — the caller should fall back to polling;
    ///   ``SceneStoreError/io(syscall:path:errno:)`` when the directory cannot
    ///   be watched (missing, not a directory, no permission).
    package func watch(
        directory: URL,
        handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) throws -> FileWatchToken {
        let path = directory.standardizedFileURL.path
        return try state.withLock { state throws(SceneStoreError) in
            // Idle means the last session is closed: never two at once.
            if state.running == nil {
                let session = try LibrarySession.open(logger: logger)
                state.running = (session, InotifyWatchTable(addWatch: session.addWatch, removeWatch: session.removeWatch))
                // Waits for the thread to bear its name, which tools count.
                let named = DispatchSemaphore(value: 0)
                Thread { [self] in runOwnerThread(session, named: named) }.start()
                named.wait()
            }
            state.lastTokenID += 1
            try state.running?.table.add(token: state.lastTokenID, directory: path, handler: handler)
            return FileWatchToken(id: state.lastTokenID)
        }
    }

    /// Stops delivering events for `token`. Idempotent.
    ///
    /// Removes the interest at once; called from another thread than the
    /// owner's, it then waits for the batch of handler calls in progress, if
    /// any: once `cancel` returns the handler is not called again.
    /// Cancelling the last interest wakes the owner thread, which closes the
    /// library and the wake file and exits.
    package func cancel(_ token: FileWatchToken) {
        let wait = state.withLock { state -> Bool in
            guard state.running?.table.contains(token.id) == true else { return false }
            state.running?.table.remove(token: token.id)
            if state.running?.table.isEmpty == true { state.running?.session.wake() }
            return state.owner.map { pthread_equal($0, pthread_self()) == 0 } ?? true
        }
        // Each handler call of a batch checks the table first.
        if wait { delivering.withLock {} }
    }
}

// MARK: - The library

/// One initialisation of libinotifytools plus the wake file. Opened and
/// closed under ``InotifyWatcher``'s lock, read by the owner thread alone.
final class LibrarySession: Sendable {
    enum Next {
        /// The wake file was touched, or a signal interrupted the wait.
        case wake
        case event(InotifyEventRecord)
        /// `inotifytools_next_event` failed with this errno.
        case failed(Int32)
    }

    /// The library's inotify descriptor.
    private let inotifyFD: Int32
    /// The open, unlinked wake file.
    private let wakeFD: Int32
    private let wakeWD: Int32

    private init(inotifyFD: Int32, wakeFD: Int32, wakeWD: Int32) {
        self.inotifyFD = inotifyFD
        self.wakeFD = wakeFD
        self.wakeWD = wakeWD
    }

    private static let directoryMask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)
        | UInt32(IN_DELETE_SELF | IN_MOVE_SELF)
    private static let ancestorMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
    private static let parentMask = ancestorMask | UInt32(IN_DELETE | IN_MOVED_FROM)
    private static let entryMask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)

    /// Initialises the library and the wake file.
    ///
    /// The library's descriptor is found, not guessed: the wake file, a
    /// private inode no other instance watches, is watched through the
    /// library (`inotifytools_watch_file`), and the one inotify descriptor
    /// of the process whose `/proc/self/fdinfo` lists a watch on that
    /// inode is the library's, whatever other inotify instances the app
    /// creates and closes meanwhile. A fresh instance lists that watch
    /// alone, as wd 1; one that lists others was initialised by other code
    /// of this process, which keeps it: the wake watch is taken off it
    /// and nothing is closed.
    /// - Throws: ``SceneStoreError/watcherUnavailable(reason:)``.
    static func open(logger: Logger) throws(SceneStoreError) -> LibrarySession {
        let wake: WakeFile
        do {
            wake = try WakeFile.create()
        } catch {
            throw .watcherUnavailable(reason: "cannot create the wake file: \(error)")
        }
        defer { unlink(wake.path) }
        var wakeOpen = true
        defer { if wakeOpen { _ = Glibc.close(wake.fd) } }
        guard inotifytools_initialize() != 0 else {
            let code = inotifytools_error()
            throw .watcherUnavailable(reason: "inotifytools_initialize failed: \(String(cString: strerror(code))) (errno \(code))")
        }
        // Until a watch is added there are no events: the failure paths below
        // close the library without draining (which would select() on the fd).
        guard inotifytools_watch_file(wake.path, IN_ATTRIB) != 0 else {
            let code = inotifytools_error()
            inotifytools_cleanup()
            throw .watcherUnavailable(reason: "cannot watch the wake file: \(String(cString: strerror(code))) (errno \(code))")
        }
        guard let found = watcher(of: wake) else {
            inotifytools_cleanup()
            throw .watcherUnavailable(reason: "no inotify descriptor of this process watches the wake file")
        }
        guard found.watches == 1, found.wd == 1 else {
            // Initialised before, by other code in this process: not ours to close.
            _ = inotifytools_remove_watch_by_wd(found.wd)
            throw .watcherUnavailable(reason: "libinotifytools is already initialised elsewhere in this process")
        }
        let fd = found.fd
        // The library opens it without close-on-exec.
        do throws(SceneStoreError) {
            let flags = try syscall("fcntl(F_GETFD)", path: "inotify") { fcntl(fd, F_GETFD) }
            try syscall("fcntl(F_SETFD)", path: "inotify") { fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        } catch {
            inotifytools_cleanup()
            throw .watcherUnavailable(reason: "close-on-exec on the inotify descriptor: \(error)")
        }
        // The library waits with select(), which aborts the process for fd >= FD_SETSIZE.
        guard fd < FD_SETSIZE else {
            inotifytools_cleanup()
            throw .watcherUnavailable(reason: "inotify descriptor \(fd) is not below FD_SETSIZE (\(FD_SETSIZE)); libinotifytools' select() cannot wait on it")
        }
        wakeOpen = false
        logger.debug("inotify started", metadata: ["fd": "\(fd)"])
        return LibrarySession(inotifyFD: fd, wakeFD: wake.fd, wakeWD: found.wd)
    }

    /// A temporary file, unlinked once watched: its open descriptor keeps
    /// it alive and `futimens` on it wakes the reader.
    private struct WakeFile {
        let fd: Int32
        let path: String
        let inode: UInt64
        /// The device as the kernel prints it in fdinfo (`sdev`):
        /// `major << 20 | minor`, not `st_dev`'s encoding.
        let kernelDevice: UInt64

        static func create() throws(SceneStoreError) -> WakeFile {
            let directory = FileManager.default.temporaryDirectory.standardizedFileURL.path
            let path = "\(directory)/scenestore-wake-\(getpid())-\(UUID().uuidString)"
            let system = LiveFileSystem()
            let file = try io("open", path) { () throws(Errno) in try system.open(path, .createNew) }
            let info: FileStatus
            do {
                info = try io("fstat", path) { () throws(Errno) in try system.status(file) }
            } catch {
                system.close(file)
                try? system.unlink(path)
                throw error
            }
            let device = info.identity.device
            let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
            let minor = (device & 0xff) | ((device >> 12) & ~0xff)
            return WakeFile(fd: file.rawValue, path: path, inode: info.identity.inode, kernelDevice: major << 20 | minor)
        }
    }

    /// The inotify descriptor of this process that watches `wake`'s inode:
    /// its number, the wd of that watch, and how many watches it has.
    private static func watcher(of wake: WakeFile) -> (fd: Int32, wd: Int32, watches: Int)? {
        guard let names = try? LiveFileSystem().entries(ofDirectory: "/proc/self/fd") else { return nil }
        var target = [CChar](repeating: 0, count: 64)
        for name in names {
            guard let fd = Int32(name) else { continue }
            let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard length > 0 else { continue }
            let link = target.prefix(length).withUnsafeBufferPointer { buffer in
                String(decoding: UnsafeRawBufferPointer(buffer), as: UTF8.self)
            }
            // Another instance may close meanwhile: its fdinfo is gone, or
            // belongs to what took its number, and lists no watch of ours.
            guard link == "anon_inode:inotify",
                  let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(name)", encoding: .utf8) else { continue }
            let watches = info.split(separator: "\n").compactMap(FDInfoWatch.init)
            if let ours = watches.first(where: { $0.inode == wake.inode && $0.device == wake.kernelDevice }) {
                return (fd, ours.wd, watches.count)
            }
        }
        return nil
    }

    /// One `inotify wd:%x ino:%lx sdev:%x mask:%x …` line of an fdinfo.
    private struct FDInfoWatch {
        let wd: Int32
        let inode: UInt64
        let device: UInt64

        init?(_ line: Substring) {
            guard line.hasPrefix("inotify ") else { return nil }
            var fields: [Substring: Substring] = [:]
            for field in line.split(separator: " ") {
                guard let colon = field.firstIndex(of: ":") else { continue }
                fields[field[..<colon]] = field[field.index(after: colon)...]
            }
            guard let wd = fields["wd"].flatMap({ Int32($0, radix: 16) }),
                  let inode = fields["ino"].flatMap({ UInt64($0, radix: 16) }),
                  let device = fields["sdev"].flatMap({ UInt64($0, radix: 16) }) else { return nil }
            self.wd = wd
            self.inode = inode
            self.device = device
        }
    }

    func addWatch(path: String, role: InotifyWatchRole) -> Result<Int32, SceneStoreError> {
        let roleMask = switch role {
        case .directory: Self.directoryMask
        case .ancestor: Self.ancestorMask
        case .parent: Self.parentMask
        }
        let mask = roleMask | UInt32(IN_MASK_ADD) | UInt32(IN_ONLYDIR)
        return Result { () throws(SceneStoreError) in
            try syscall("inotify_add_watch", path: path) { inotify_add_watch(inotifyFD, path, mask) }
        }.mapError { error in
            guard case .io(_, _, .noSpace) = error else { return error }
            return .watcherUnavailable(reason: "inotify watch limit reached (fs.inotify.max_user_watches) adding \(path)")
        }
    }

    /// Removes a watch; silent when the kernel already dropped it.
    func removeWatch(_ wd: Int32) {
        _ = inotify_rm_watch(inotifyFD, wd)
    }

    /// Blocks until the next event, copying it out of the library's buffer.
    func nextEvent() -> Next {
        guard let event = inotifytools_next_event(0) else {
            let code = inotifytools_error()
            return code == EINTR ? .wake : .failed(code)
        }
        return next(event)
    }

    /// The next event if one is queued already (in the library's buffer or
    /// the kernel's), `nil` at once if none is: `next_events` with a zero
    /// timeout polls.
    func nextEventIfQueued() -> Next? {
        guard let event = inotifytools_next_events(0, 1) else {
            let code = inotifytools_error()
            if code == 0 { return nil }
            return code == EINTR ? .wake : .failed(code)
        }
        return next(event)
    }

    private func next(_ event: UnsafeMutablePointer<inotify_event>) -> Next {
        let wd = event.pointee.wd
        let mask = event.pointee.mask
        let name = event.pointee.len > 0 ? String(cString: scenestore_inotify_event_name(event)) : nil
        if wd == wakeWD { return .wake }
        var record = InotifyEventRecord(wd: wd, name: name)
        record.overflows = mask & UInt32(IN_Q_OVERFLOW) != 0
        record.dropsWatch = mask & UInt32(IN_IGNORED) != 0
        record.losesTarget = mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0
        record.changesEntry = name != nil && mask & Self.entryMask != 0
        record.addsSubdirectory = name != nil && mask & UInt32(IN_ISDIR) != 0
            && mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0
        record.removesSubdirectory = name != nil && mask & UInt32(IN_ISDIR) != 0
            && mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0
        return .event(record)
    }

    /// Wakes the owner thread out of `nextEvent()`.
    func wake() {
        _ = futimens(wakeFD, nil)
    }

    /// Closes the library and the wake file; once only. Empties the
    /// library's static event buffer first: it survives
    /// `inotifytools_cleanup` and would hand stale events to the next session.
    func close() {
        while inotifytools_next_events(0, 1) != nil {}
        inotifytools_cleanup()
        _ = Glibc.close(wakeFD)
    }
}
#endif
