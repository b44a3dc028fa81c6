import Foundation
import Testing
@testable import SceneStore

#if canImport(Glibc)
import Glibc
#endif

/// Every suite that touches real watchers runs under this one, one test at a
/// time: they share the process-wide inotify watcher and measure descriptor,
/// thread and CPU counts of the process.
@Suite(.serialized, .timeLimit(.minutes(2)))
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
            throw SceneStoreError.io(syscall: "mkdtemp", path: base, errno: errno)
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
        guard fd >= 0 else { throw SceneStoreError.io(syscall: "open", path: path, errno: errno) }
        defer { close(fd) }
        let bytes = Array(contents.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else {
            throw SceneStoreError.io(syscall: "write", path: path, errno: errno)
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Collects the events a handler receives and lets a test wait for one,
/// with a deadline, without sleeping.
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
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.events.append(event)
            var ready: [CheckedContinuation<Bool, Never>] = []
            for (id, var waiter) in state.waiters where waiter.predicate(event) {
                waiter.remaining -= 1
                if waiter.remaining <= 0 {
                    state.waiters[id] = nil
                    ready.append(waiter.continuation)
                } else {
                    state.waiters[id] = waiter
                }
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Whether `count` events matching `predicate` were received, counting
    /// those already received, within `timeout`.
    func wait(
        count: Int = 1,
        timeout: Duration = .seconds(10),
        for predicate: @escaping @Sendable (FileWatchEvent) -> Bool
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            let id = state.withLock { state -> UInt64? in
                let remaining = count - state.events.lazy.filter(predicate).count
                if remaining <= 0 { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = Waiter(predicate: predicate, remaining: remaining, continuation: continuation)
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            Task { [state] in
                try? await Task.sleep(for: timeout)
                let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
                expired?.continuation.resume(returning: false)
            }
        }
    }

    func wait(for event: FileWatchEvent, count: Int = 1, timeout: Duration = .seconds(10)) async -> Bool {
        await wait(count: count, timeout: timeout) { $0 == event }
    }
}

/// Process-wide counters from /proc.
enum ProcessProbe {
    static func openDescriptorCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

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

    static func threadCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count
    }

    /// utime + stime in seconds from a `stat` file of /proc.
    static func cpuSeconds(statPath: String = "/proc/self/stat") -> Double? {
        guard let text = try? String(contentsOfFile: statPath, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after "comm)": state is field 3; utime and stime are 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) / ticks
    }

    /// The /proc stat file of the thread whose name starts with `prefix`.
    static func threadStatPath(named prefix: String) -> String? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.lazy.map { "/proc/self/task/\($0)" }.first { task in
            let name = (try? String(contentsOfFile: "\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix(prefix)
        }.map { "\($0)/stat" }
    }

    /// Waits, up to `timeout`, for `condition` to hold (checking every 10 ms).
    static func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
