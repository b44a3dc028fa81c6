import Foundation
import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// How a child ended, as `waitpid` tells it.
package enum ChildEnd: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)

    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    /// The status a shell reports: the exit status, or 128 + the signal.
    package var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal
        }
    }
}

/// Waits for a child started by ``spawnChild(_:_:environment:descriptors:workingDirectory:searchPath:)``
/// on a thread of its own (not a global dispatch queue, whose few threads
/// run every test's tasks), and tells the test how it ended.
///
/// Not `Foundation.Process`: it learns of a child's exit through a
/// descriptor that a child another test spawns at the same moment may
/// inherit and keep open, and `waitUntilExit()` then never returns (and
/// spins a core meanwhile), though the child is long gone.
package final class ChildReaper: Sendable {
    package let pid: pid_t
    private let state = Locked<(end: ChildEnd?, waiters: [CheckedContinuation<ChildEnd, Never>])>((nil, []))

    package init(pid: pid_t) {
        self.pid = pid
        let state = state
        Thread.detachNewThread {
            var status: Int32 = 0
            var reaped = waitpid(pid, &status, 0)
            while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, 0) }
            // Not our child (or already reaped): report it as gone.
            let end = reaped < 0 ? ChildEnd.exited(-1) : ChildEnd(waitStatus: status)
            let waiters = state.withLock { state in
                state.end = end
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: end) }
        }
    }

    /// Whether the child has not been reaped yet.
    package var isRunning: Bool { state.withLock { $0.end == nil } }

    /// Sends `signal`, only while the child has not been reaped (its pid
    /// may be another process's afterwards).
    package func kill(_ signal: Int32 = SIGKILL) {
        state.withLock { state in
            if state.end == nil { _ = Glibc.kill(pid, signal) }
        }
    }

    /// Waits for the child to end.
    package func end() async -> ChildEnd {
        await withCheckedContinuation { continuation in
            let end = state.withLock { state -> ChildEnd? in
                if state.end == nil { state.waiters.append(continuation) }
                return state.end
            }
            if let end { continuation.resume(returning: end) }
        }
    }

    /// Waits for the child to end, up to `timeout`; then kills it.
    /// - Returns: how it ended, or `nil` if it had to be killed.
    package func end(within timeout: Duration) async -> ChildEnd? {
        let timedOut = Locked(false)
        let watchdog = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            timedOut.withLock { $0 = true }
            self.kill()
        }
        let end = await end()
        watchdog.cancel()
        return timedOut.withLock { $0 } ? nil : end
    }
}
