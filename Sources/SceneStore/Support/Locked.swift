import Foundation

/// A value guarded by a mutex.
///
/// One small type so that every lock in the library is the same kind:
/// `NSLock` here, because `Synchronization.Mutex` gives false ThreadSanitizer
/// reports on Linux with this toolchain. Never call out (yield to a stream,
/// resume a continuation, do I/O) inside `withLock`.
///
/// Sendable only when `State` is, as swift-nio's `NIOLockedValueBox`: the
/// lock orders access, it does not make a non-Sendable value safe to share.
package final class Locked<State> {
    private let lock = NSLock()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    package func withLock<R, Failure: Error>(
        _ body: (inout State) throws(Failure) -> R
    ) throws(Failure) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// `body` on the value if the lock is free now; `nil` without waiting
    /// when another thread holds it. For the file watcher's thread, which
    /// every registry of the process shares and must never wait for a
    /// store's long work (decoding a large scene holds its reader).
    package func withLockIfAvailable<R>(_ body: (inout State) -> R) -> R? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return body(&state)
    }
}

extension Locked: @unchecked Sendable where State: Sendable {}
