import Glibc
@testable import SceneStore

// A file system whose calls fail as a test chooses, for the unit tests of
// the file root's failure paths (FileFaultTests, FlushThreadTests).

extension FileSystem {
    /// The live calls, but those `faults` holds fail as it says.
    static func faulty(_ faults: FileFaults) -> FileSystem {
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
final class FileFaults: Sendable {
    enum Call: Sendable, Hashable {
        case open, pwrite, fsync, fdatasync, exchange, rename
    }

    enum Fault: Sendable {
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

    init() {}

    /// Makes every `call` from now on fail as `fault` says.
    func inject(_ fault: Fault, into call: Call) {
        state.withLock { $0.faults[call] = fault }
    }

    /// Lets every call run again.
    func clear() {
        state.withLock { $0.faults = [:] }
    }

    /// How many `call`s were made.
    func count(of call: Call) -> Int {
        state.withLock { $0.calls[call]?.count ?? 0 }
    }

    /// The threads `call`s ran on (`pthread_self()`).
    func threads(of call: Call) -> Set<pthread_t> {
        state.withLock { $0.calls[call]?.threads ?? [] }
    }

    /// The fault of the `call` about to run, or `nil` to run it; for a
    /// write that grows a file by `growth` bytes on a disk with space,
    /// `.space` with how many of them it may write (taken from the space).
    func take(_ call: Call, growing growth: Int = 0) -> Fault? {
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
