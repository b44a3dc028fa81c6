import Foundation
import SystemPackage
import Testing
@testable import SceneStore

#if canImport(Glibc)
import Glibc
#endif

/// Every suite that touches real watchers runs under this one, one test at a
/// time: they share the process-wide inotify watcher. Other suites of this
/// process open registries (which use that watcher too) in parallel, so
/// nothing here measures process-wide counts or blocks the watcher's thread:
/// descriptor, thread, watch and CPU counts, the descriptor-above-1023
/// fallback and queue overflow are checked in a child process by
/// `Tests/ScenesCLITests/Sync` (`scenes-lab probe ...`).
// Hang guard: its slowest test took 6 s here (2 cores); 3 minutes, as TSan and the load step run it several times slower.
@Suite(.serialized, .timeLimit(.minutes(3)))
enum SyncWatcherTests {}

/// A fresh directory from `mkdtemp`, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init(_ label: String = "watch") throws {
        let base = FileManager.default.temporaryDirectory.standardizedFileURL.path
        var template = Array("\(base)/scenestore-\(label)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        guard let created else {
            throw SceneStoreError.io(syscall: "mkdtemp", path: base, errno: Errno(rawValue: errno))
        }
        url = URL(fileURLWithPath: created, isDirectory: true)
    }

    /// A directory made elsewhere; ``remove()`` removes it too.
    init(existing url: URL) {
        self.url = url
    }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Creates or truncates `name`, writes `contents` and closes it (`IN_CLOSE_WRITE`).
    func write(_ name: String, _ contents: String = "x") throws {
        let path = file(name)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SceneStoreError.io(syscall: "open", path: path, errno: Errno(rawValue: errno)) }
        defer { close(fd) }
        let bytes = Array(contents.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else {
            throw SceneStoreError.io(syscall: "write", path: path, errno: Errno(rawValue: errno))
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Collects the events a handler receives and lets a test wait for one,
/// with a deadline, without sleeping.
///
/// Predicates are user code: they are never called while the recorder's
/// lock is held (a predicate may read ``events``). Each event is matched
/// against each waiter exactly once: by `wait` for the events recorded
/// before the waiter was registered, by `record` for the later ones.
final class EventRecorder: Sendable {
    private struct Waiter {
        let predicate: @Sendable (FileWatchEvent) -> Bool
        var remaining: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var events: [FileWatchEvent] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// The handler to register.
    var handler: @Sendable (FileWatchEvent) -> Void {
        { [self] event in record(event) }
    }

    var events: [FileWatchEvent] { state.withLock { $0.events } }

    func record(_ event: FileWatchEvent) {
        let waiters = state.withLock { state in
            state.events.append(event)
            return state.waiters.map { (id: $0.key, predicate: $0.value.predicate) }
        }
        let matched = waiters.filter { $0.predicate(event) }.map(\.id)
        guard !matched.isEmpty else { return }
        resume(countMatches(matched, matches: 1))
    }

    /// Counts `matches` more matches for each waiter in `ids` that is still
    /// waiting; returns the continuations of those that are now satisfied.
    private func countMatches(_ ids: [UInt64], matches: Int) -> [CheckedContinuation<Bool, Never>] {
        state.withLock { state in
            var ready: [CheckedContinuation<Bool, Never>] = []
            for id in ids {
                guard var waiter = state.waiters[id] else { continue }
                waiter.remaining -= matches
                if waiter.remaining <= 0 {
                    state.waiters[id] = nil
                    ready.append(waiter.continuation)
                } else {
                    state.waiters[id] = waiter
                }
            }
            return ready
        }
    }

    private func resume(_ continuations: [CheckedContinuation<Bool, Never>]) {
        for continuation in continuations { continuation.resume(returning: true) }
    }

    /// Whether `count` events matching `predicate` were received, counting
    /// those already received, within `timeout`.
    func wait(
        count: Int = 1,
        timeout: Duration = .seconds(30),
        for predicate: @escaping @Sendable (FileWatchEvent) -> Bool
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            // Register first, then match what came before, outside the lock.
            let (id, earlier) = state.withLock { state in
                state.nextID += 1
                state.waiters[state.nextID] = Waiter(predicate: predicate, remaining: count, continuation: continuation)
                return (state.nextID, state.events)
            }
            resume(countMatches([id], matches: earlier.filter(predicate).count))
            Task { [state] in
                try? await Task.sleep(for: timeout)
                let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
                expired?.continuation.resume(returning: false)
            }
        }
    }

    func wait(for event: FileWatchEvent, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        await wait(count: count, timeout: timeout) { $0 == event }
    }
}

/// What /proc says about this process's descriptors.
enum ProcessProbe {
    /// Open descriptors whose /proc/self/fd link reads `target`.
    static func descriptors(linkingTo target: String) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { name in
            guard let fd = Int32(name),
                  (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == target
            else { return nil }
            return fd
        }
    }
}
