import Foundation

/// Reads stdin on a thread of its own and delivers decoded keys (`nil` once
/// stdin is closed) until ``stop()``.
///
/// Stopping matters: a thread left blocked in `read(2)` after the terminal
/// is restored would swallow what the user types for the shell next.
final class KeyReader: Sendable {
    /// Written to by ``stop()`` to wake the thread's `poll(2)`.
    private let wake: (read: Int32, write: Int32)
    private let stopped = DispatchSemaphore(value: 0)

    init(_ deliver: @escaping @Sendable (Key?) -> Void) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        wake = (fds[0], fds[1])
        Thread.detachNewThread { [wake, stopped] in
            Self.readKeys(wake: wake.read, deliver: deliver)
            stopped.signal()
        }
    }

    /// Wakes the thread and returns once it no longer reads stdin. Call once.
    func stop() {
        guard wake.write >= 0 else { return }
        var byte: UInt8 = 1
        guard write(wake.write, &byte, 1) == 1 else { return }
        stopped.wait()
        close(wake.write)
        close(wake.read)
    }

    private static func readKeys(wake: Int32, deliver: @Sendable (Key?) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 256)
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else {
                deliver(nil)
                return
            }
            for key in Key.parse(Array(buffer[0..<count])) { deliver(key) }
        }
    }
}
