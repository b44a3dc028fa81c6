internal import CSceneSupport
#if canImport(Glibc)
import Glibc
#endif

/// The system calls of the file root's saves, where a failure decides
/// what is durable: creating a file, writing at an offset, `fsync`,
/// `fdatasync`, the exchange and the `rename` that put a version in place.
/// ``live`` makes them; ``faulty(_:)`` makes the ones a test chose fail
/// (a full disk, an I/O error, the open-file limit, a short write), so
/// that those paths run as unit tests, without root or a small disk.
/// Each returns what the C call returns and sets `errno` as it does.
package struct FileSystem: Sendable {
    var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    var pwrite: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int
    var fsync: @Sendable (_ fd: Int32) -> Int32
    var fdatasync: @Sendable (_ fd: Int32) -> Int32
    /// `renameat2(RENAME_EXCHANGE)`.
    var exchange: @Sendable (_ from: String, _ to: String) -> Int32
    var rename: @Sendable (_ from: String, _ to: String) -> Int32

    package static let live = FileSystem(
        open: { path, flags, mode in Glibc.open(path, flags, mode) },
        pwrite: { fd, bytes, offset in Glibc.pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset)) },
        fsync: { Glibc.fsync($0) },
        fdatasync: { Glibc.fdatasync($0) },
        exchange: { scenestore_exchange($0, $1) },
        rename: { Glibc.rename($0, $1) })

    /// The live calls, but those `faults` holds fail as it says.
    package static func faulty(_ faults: FileFaults) -> FileSystem {
        let live = Self.live
        @Sendable func failing(_ call: FileFaults.Call, _ run: () -> Int32) -> Int32 {
            guard case .error(let code)? = faults.take(call) else { return run() }
            return failed(code)
        }
        return FileSystem(
            open: { path, flags, mode in failing(.open) { live.open(path, flags, mode) } },
            pwrite: { fd, bytes, offset in
                // Bytes over the file's own take no space.
                var info = stat()
                let inside = Glibc.fstat(fd, &info) == 0 ? max(0, min(bytes.count, Int(info.st_size) - offset)) : 0
                switch faults.take(.pwrite, growing: bytes.count - inside) {
                case .error(let code)?:
                    return failed(code)
                case .space(let grows)? where inside + grows == 0:
                    return failed(ENOSPC)
                case .space(let grows)?:
                    return live.pwrite(fd, UnsafeRawBufferPointer(rebasing: bytes.prefix(inside + grows)), offset)
                case nil:
                    return live.pwrite(fd, bytes, offset)
                }
            },
            fsync: { fd in failing(.fsync) { live.fsync(fd) } },
            fdatasync: { fd in failing(.fdatasync) { live.fdatasync(fd) } },
            exchange: { from, to in failing(.exchange) { live.exchange(from, to) } },
            rename: { from, to in failing(.rename) { live.rename(from, to) } })
    }
}

/// What a failed C call returns: `-1`, with `errno` set to `code`.
private func failed<Result: BinaryInteger>(_ code: Int32) -> Result {
    errno = code
    return -1
}

/// The failures a test injects into ``FileSystem/faulty(_:)``: each call
/// fails as set, every time, until cleared (a disk stays full until space
/// is freed). It also counts the calls and notes the threads they ran on.
package final class FileFaults: Sendable {
    package enum Call: Sendable, Hashable {
        case open, pwrite, fsync, fdatasync, exchange, rename
    }

    package enum Fault: Sendable {
        /// The call fails with this `errno`.
        case error(Int32)
        /// A disk with this many bytes left: writes that grow a file take
        /// them, the one that reaches the end is cut short (it says how
        /// much it wrote), and the next fails with `ENOSPC`; bytes written
        /// over a file's own take none. (`pwrite` only.)
        case space(Int)
    }

    private struct State {
        var faults: [Call: Fault] = [:]
        /// The calls made, failed or not, with the threads they ran on.
        var calls: [Call: (count: Int, threads: Set<pthread_t>)] = [:]
    }

    private let state = Locked(State())

    package init() {}

    /// Makes every `call` from now on fail as `fault` says.
    package func inject(_ fault: Fault, into call: Call) {
        state.withLock { $0.faults[call] = fault }
    }

    /// Lets every call run again.
    package func clear() {
        state.withLock { $0.faults = [:] }
    }

    /// How many `call`s were made.
    package func count(of call: Call) -> Int {
        state.withLock { $0.calls[call]?.count ?? 0 }
    }

    /// The threads `call`s ran on (`pthread_self()`).
    package func threads(of call: Call) -> Set<pthread_t> {
        state.withLock { $0.calls[call]?.threads ?? [] }
    }

    /// The fault of the `call` about to run, or `nil` to run it; for a
    /// write that grows a file by `growth` bytes on a disk with space,
    /// `.space` with how many of them it may write (taken from the space).
    fileprivate func take(_ call: Call, growing growth: Int = 0) -> Fault? {
        let thread = pthread_self()
        return state.withLock { state -> Fault? in
            state.calls[call, default: (0, [])].count += 1
            state.calls[call, default: (0, [])].threads.insert(thread)
            guard let fault = state.faults[call] else { return nil }
            guard case .space(let left) = fault else { return fault }
            state.faults[call] = .space(left - min(left, growth))
            return .space(min(left, growth))
        }
    }
}
