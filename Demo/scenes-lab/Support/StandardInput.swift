import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Returns once stdin reaches end of file (the parent closed the pipe or
/// exited), reading and ignoring whatever arrives. Waits on its own
/// thread, not on the cooperative pool.
func standardInputClosed() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count > 0 || (count == -1 && errno == EINTR) { continue }
                break
            }
            continuation.resume()
        }.start()
    }
}

/// Returns once stdin reaches end of file, calling `line` with each line
/// that arrives (without its newline). Reads on its own thread.
func standardInputLines(_ line: @escaping @Sendable (String) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            var pending: [UInt8] = []
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == -1 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending += buffer.prefix(count)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            continuation.resume()
        }.start()
    }
}
