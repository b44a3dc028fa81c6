internal import CSceneSupport
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``FileWatcher`` that compares `stat` snapshots of a directory's entries
/// at a fixed interval.
///
/// Used where inotify cannot serve: its limits are reached, the platform is
/// not Linux, or the file system is shared over the network (inotify does not
/// see writes made on other machines).
///
/// Each interest keeps a snapshot of its directory — entry name -> inode,
/// size, modification and status-change times in nanoseconds, and for a
/// regular file a hash of its first 512 and last 4096 bytes — taken when
/// `watch` is called. Every `interval` the directory is listed again and
/// ``FileWatchEvent/changed(name:)`` is delivered, in name order, for each
/// entry that appeared, vanished or whose stamp differs. When the directory
/// itself vanishes or comes back, ``FileWatchEvent/rescan`` is delivered as
/// well. The bytes are compared because times do not tell every save: on a
/// file system with coarse timestamps (a kernel tick of 4 ms: ext4 before
/// Linux 6.13, ramfs) two saves of the same size within one tick keep size
/// and both times equal. A save appends to a scene's log or writes it whole,
/// which changes its end or its head. Changes that undo themselves within
/// one interval, or that keep inode, size, both times and those bytes
/// equal, are not seen.
///
/// Handlers run on the watcher's private serial dispatch queue, one at a
/// time. Timers use a leeway of a tenth of the interval.
package final class PollingWatcher: FileWatcher {
    /// The time between two scans of a directory.
    package let interval: Duration

    private let queue = DispatchQueue(label: "SceneStore.PollingWatcher")
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    private let state = Locked(State())

    private struct State {
        var nextTokenID: UInt64 = 1
        var interests: [UInt64: (poll: Poll, timer: Timer)] = [:]
    }

    /// A dispatch timer, which Dispatch documents as safe to use from any
    /// thread (its protocol just does not say `Sendable`).
    private struct Timer: @unchecked Sendable {
        let source: any DispatchSourceTimer
    }

    /// - Parameter interval: the time between scans; values below one
    ///   millisecond are raised to one millisecond.
    package init(interval: Duration) {
        self.interval = max(interval, .milliseconds(1))
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
    }

    package var kind: WatcherKind { .polling(interval: interval) }

    /// Takes the first snapshot of `directory` on the calling thread, then
    /// scans it every ``interval``.
    ///
    /// - Parameters:
    ///   - directory: an existing, readable directory.
    ///   - handler: called on the watcher's queue; must return quickly.
    /// - Returns: the token to pass to ``cancel(_:)``.
    /// - Throws: ``SceneStoreError/io(syscall:path:errno:)`` when the
    ///   directory cannot be listed.
    package func watch(
        directory: URL,
        handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) throws -> FileWatchToken {
        try watch(directory: directory, mayBeMissing: false, handler: handler)
    }

    /// ``watch(directory:handler:)``; with `mayBeMissing`, a directory
    /// that does not exist yet is watched too (``FileWatchEvent/rescan``
    /// once it exists), as for an interest another watcher hands over.
    package func watch(
        directory: URL, mayBeMissing: Bool,
        handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) throws -> FileWatchToken {
        let path = directory.standardizedFileURL.path
        let snapshot: [String: Stamp]?
        switch Self.scan(path) {
        case .success(let entries): snapshot = entries
        case .failure(.io(_, _, .noSuchFileOrDirectory)) where mayBeMissing: snapshot = nil
        case .failure(let error): throw error
        }
        let poll = Poll(directory: path, handler: handler, snapshot: snapshot)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { poll.tick() }
        let token = state.withLock { state in
            let id = state.nextTokenID
            state.nextTokenID += 1
            state.interests[id] = (poll, Timer(source: timer))
            return FileWatchToken(id: id)
        }
        let nanoseconds = interval.nanoseconds
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds),
            repeating: .nanoseconds(nanoseconds),
            leeway: .nanoseconds(max(nanoseconds / 10, 1))
        )
        timer.activate()
        return token
    }

    /// Stops scanning for `token`. Idempotent.
    ///
    /// Once `cancel` returns the handler is not called again: called from
    /// another thread it waits for a handler call in progress to return;
    /// called from the handler itself it takes effect for the rest of the
    /// current scan.
    package func cancel(_ token: FileWatchToken) {
        guard let interest = state.withLock({ $0.interests.removeValue(forKey: token.id) }) else { return }
        interest.poll.cancel()
        interest.timer.source.cancel()
        if DispatchQueue.getSpecific(key: queueKey) != ObjectIdentifier(self) {
            queue.sync {}
        }
    }

    // MARK: - Snapshots

    /// What identifies one version of a directory entry.
    struct Stamp: Equatable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
        /// A hash of a regular file's first 512 and last 4096 bytes (0 for
        /// other entries, or a file that cannot be read).
        var ends: UInt64 = 0
    }

    /// A hash (`Hasher`) of the first 512 and the last 4096 bytes of the
    /// regular file at `path` (the whole file when it is smaller); 0 when
    /// it cannot be read. Opened without following a symbolic link, nor
    /// blocking on a FIFO put in its place, nor touching its access time.
    static func hashOfEnds(_ path: String, size: Int64) -> UInt64 {
        let fd = scenestore_open_to_read(path)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let headLength = Int(min(size, 512))
        let tailLength = Int(min(max(size - Int64(headLength), 0), 4096))
        var buffer = [UInt8](repeating: 0, count: headLength + tailLength)
        let read = buffer.withUnsafeMutableBytes { bytes -> Int in
            guard let base = bytes.baseAddress else { return 0 }
            let head = pread(fd, base, headLength, 0)
            let tail = pread(fd, base + headLength, tailLength, off_t(size - Int64(tailLength)))
            return head == headLength && tail == tailLength ? head + tail : -1
        }
        guard read >= 0 else { return 0 }
        // Compared within this process only: its seeded hash will do.
        var hasher = Hasher()
        buffer.withUnsafeBytes { hasher.combine(bytes: $0) }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The entries of `directory` with their stamps (not following symlinks).
    static func scan(_ directory: String) -> Result<[String: Stamp], SceneStoreError> {
        Result { () throws(SceneStoreError) in
            let stamped = try directoryEntries(directory) { fd, name -> (String, Stamp)? in
                var info = stat()
                // An entry removed between readdir and fstatat is simply absent.
                guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
                let size = Int64(info.st_size)
                return (name, Stamp(
                    inode: UInt64(info.st_ino),
                    size: size,
                    modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                    changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec),
                    ends: info.st_mode & S_IFMT == S_IFREG ? hashOfEnds("\(directory)/\(name)", size: size) : 0))
            }
            return Dictionary(stamped) { first, _ in first }
        }
    }

    /// One interest: its directory, handler and last snapshot. Scanned on the
    /// watcher's queue only.
    private final class Poll: Sendable {
        let directory: String
        let handler: @Sendable (FileWatchEvent) -> Void
        /// The last snapshot, nil while the directory cannot be listed.
        private let snapshot: Locked<[String: Stamp]?>
        private let cancelled = Locked(false)

        init(directory: String, handler: @escaping @Sendable (FileWatchEvent) -> Void, snapshot: [String: Stamp]?) {
            self.directory = directory
            self.handler = handler
            self.snapshot = Locked(snapshot)
        }

        func cancel() {
            cancelled.withLock { $0 = true }
        }

        func tick() {
            let current = try? PollingWatcher.scan(directory).get()
            let previous = snapshot.withLock { stored in
                defer { stored = current }
                return stored
            }
            var events: [FileWatchEvent] = []
            if (previous == nil) != (current == nil) {
                events.append(.rescan)
            }
            let old = previous ?? [:]
            let new = current ?? [:]
            let names = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
            events += names.map { .changed(name: $0) }
            for event in events {
                if cancelled.withLock({ $0 }) { return }
                handler(event)
            }
        }
    }
}
