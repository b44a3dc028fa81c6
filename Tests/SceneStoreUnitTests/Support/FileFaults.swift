import Glibc
@testable import SceneStore
import SystemPackage

// A file system whose calls fail as a test chooses, for the unit tests of
// the file root's failure paths (FileFaultTests, FlushThreadTests).

/// The live calls, but those a ``FileFaults`` holds fail as it says; each
/// call is counted, with the thread it ran on.
struct FaultyFileSystem: FileSystem {
    let faults: FileFaults
    private let live = LiveFileSystem()

    init(_ faults: FileFaults) {
        self.faults = faults
    }

    var watcher: (any FileWatcher)? { live.watcher }

    private func failing<Result>(_ call: FileFaults.Call, _ run: () throws(Errno) -> Result) throws(Errno) -> Result {
        if case .error(let code)? = faults.take(call) { throw Errno(rawValue: code) }
        return try run()
    }

    func open(_ path: String, _ mode: OpenMode, in directory: FileDescriptor?) throws(Errno) -> FileDescriptor {
        if case .error(let code)? = faults.take(.open, path: path) { throw Errno(rawValue: code) }
        return try live.open(path, mode, in: directory)
    }

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        // Bytes over the file's own take no space.
        let size = (try? live.status(file).size) ?? 0
        let inside = max(0, min(bytes.count, size - offset))
        switch faults.take(.pwrite, growing: bytes.count - inside) {
        case .error(let code)?:
            throw Errno(rawValue: code)
        case .space(let grows)? where inside + grows == 0:
            throw .noSpace
        case .space(let grows)?:
            return try live.write(file, UnsafeRawBufferPointer(rebasing: bytes.prefix(inside + grows)), at: offset)
        case nil:
            return try live.write(file, bytes, at: offset)
        }
    }

    func sync(_ file: FileDescriptor) throws(Errno) {
        try failing(.fsync) { () throws(Errno) in try live.sync(file) }
    }

    func syncData(_ file: FileDescriptor) throws(Errno) {
        try failing(.fdatasync) { () throws(Errno) in try live.syncData(file) }
    }

    func exchange(_ first: String, _ second: String) throws(Errno) {
        try failing(.exchange) { () throws(Errno) in try live.exchange(first, second) }
    }

    func rename(_ from: String, in fromDirectory: FileDescriptor?, to: String, in toDirectory: FileDescriptor?) throws(Errno) {
        try failing(.rename) { () throws(Errno) in try live.rename(from, in: fromDirectory, to: to, in: toDirectory) }
    }

    func close(_ file: FileDescriptor) {
        _ = faults.take(.close)
        live.close(file)
    }
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try failing(.read) { () throws(Errno) in try live.read(file, into: buffer, at: offset) }
    }
    func resize(_ file: FileDescriptor, to size: Int) throws(Errno) {
        try failing(.resize) { () throws(Errno) in try live.resize(file, to: size) }
    }
    func status(_ file: FileDescriptor) throws(Errno) -> FileStatus {
        try failing(.status) { () throws(Errno) in try live.status(file) }
    }
    func status(_ path: String, followingLinks: Bool) throws(Errno) -> FileStatus {
        try failing(.status) { () throws(Errno) in try live.status(path, followingLinks: followingLinks) }
    }
    func makeDirectory(_ path: String, in directory: FileDescriptor?) throws(Errno) {
        try failing(.makeDirectory) { () throws(Errno) in try live.makeDirectory(path, in: directory) }
    }
    func link(_ existing: String, as new: String) throws(Errno) {
        try failing(.link) { () throws(Errno) in try live.link(existing, as: new) }
    }
    func unlink(_ path: String) throws(Errno) {
        try failing(.unlink) { () throws(Errno) in try live.unlink(path) }
    }
    func entries(ofDirectory path: String) throws(Errno) -> [String] {
        try failing(.entries) { () throws(Errno) in try live.entries(ofDirectory: path) }
    }
    func lock(_ file: FileDescriptor, byte: Int64, exclusive: Bool) throws(Errno) -> Bool {
        try failing(.lock) { () throws(Errno) in try live.lock(file, byte: byte, exclusive: exclusive) }
    }
    func unlock(_ file: FileDescriptor, byte: Int64) {
        _ = faults.take(.lock)
        live.unlock(file, byte: byte)
    }
    func isLocked(_ file: FileDescriptor, byte: Int64) throws(Errno) -> Bool {
        try failing(.lock) { () throws(Errno) in try live.isLocked(file, byte: byte) }
    }
}

/// The failures a test injects into a ``FaultyFileSystem``: each call
/// fails as set, every time, until cleared (a disk stays full until space
/// is freed). It also counts the calls and notes the threads they ran on.
final class FileFaults: Sendable {
    enum Call: Sendable, Hashable, CaseIterable {
        case open, close, read, pwrite, resize, fsync, fdatasync, status, makeDirectory, exchange, rename, link, unlink
        case entries
        /// Taking, releasing or asking for an OFD lock.
        case lock
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
        /// A fault that hits only the paths ending so (`open` only).
        var suffixes: [Call: String] = [:]
        /// The calls made, failed or not, with the threads they ran on.
        var calls: [Call: (count: Int, threads: Set<pthread_t>)] = [:]
    }

    private let state = Locked(State())

    init() {}

    /// Makes every `call` from now on fail as `fault` says.
    func inject(_ fault: Fault, into call: Call, onlyOnPathsEndingIn suffix: String? = nil) {
        state.withLock {
            $0.faults[call] = fault
            $0.suffixes[call] = suffix
        }
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
    func take(_ call: Call, growing growth: Int = 0, path: String? = nil) -> Fault? {
        let thread = pthread_self()
        return state.withLock { state -> Fault? in
            state.calls[call, default: (0, [])].count += 1
            state.calls[call, default: (0, [])].threads.insert(thread)
            guard let fault = state.faults[call] else { return nil }
            if let suffix = state.suffixes[call], path?.hasSuffix(suffix) != true { return nil }
            guard case .space(let left) = fault else { return fault }
            state.faults[call] = .space(left - min(left, growth))
            return .space(min(left, growth))
        }
    }
}
