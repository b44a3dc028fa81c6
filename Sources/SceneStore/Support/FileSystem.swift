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
/// is freed), after letting a number of calls through. It also counts the
/// calls and notes the threads they ran on.
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

    private let plan = Locked<[Call: (fault: Fault, letThrough: Int)]>([:])
    /// How many calls of each kind were made, failed or not, and on which threads.
    private let counts = Locked<[Call: (count: Int, threads: Set<pthread_t>)]>([:])

    package init() {}

    /// Makes `call` fail as `fault` says from its `letThrough + 1`-th call on.
    package func inject(_ fault: Fault, into call: Call, letThrough: Int = 0) {
        plan.withLock { $0[call] = (fault, letThrough) }
    }

    /// Lets every call run again.
    package func clear() {
        plan.withLock { $0 = [:] }
    }

    /// How many `call`s were made.
    package func count(of call: Call) -> Int {
        counts.withLock { $0[call]?.count ?? 0 }
    }

    /// The threads `call`s ran on (`pthread_self()`).
    package func threads(of call: Call) -> Set<pthread_t> {
        counts.withLock { $0[call]?.threads ?? [] }
    }

    /// The fault of the `call` about to run, or `nil` to run it; for a
    /// write that grows a file by `growth` bytes on a disk with space,
    /// `.space` with how many of them it may write (taken from the space).
    fileprivate func take(_ call: Call, growing growth: Int = 0) -> Fault? {
        let thread = pthread_self()
        counts.withLock { counts in
            counts[call, default: (0, [])].count += 1
            counts[call, default: (0, [])].threads.insert(thread)
        }
        return plan.withLock { plan -> Fault? in
            guard let (fault, letThrough) = plan[call] else { return nil }
            if letThrough > 0 {
                plan[call] = (fault, letThrough - 1)
                return nil
            }
            guard case .space(let left) = fault else { return fault }
            plan[call] = (.space(left - min(left, growth)), 0)
            return .space(min(left, growth))
        }
    }
}
