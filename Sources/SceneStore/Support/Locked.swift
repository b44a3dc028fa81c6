import Foundation

/// A value guarded by a mutex.
///
/// One small type so that every lock in the library is the same kind:
/// `NSLock` here, because `Synchronization.Mutex` gives false ThreadSanitizer
/// reports on Linux with this toolchain. Never call out (yield to a stream,
/// resume a continuation, do I/O) inside `withLock`.
package final class Locked<State>: @unchecked Sendable {
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
}
