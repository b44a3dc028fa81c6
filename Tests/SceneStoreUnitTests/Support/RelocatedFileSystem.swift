import Foundation
@testable import SceneStore
import SystemPackage

/// The live calls with the root moved: a path under `virtualRoot` (a
/// directory that does not exist) names the same path under `realRoot`,
/// and every descriptor handed out is the real one plus ``offset``. A call
/// that bypasses the file system names a path that does not exist, or a
/// descriptor that is not open (`EBADF`), and fails.
struct RelocatedFileSystem: FileSystem {
    let virtualRoot: String
    let realRoot: String
    private let live = LiveFileSystem()
    static let offset: CInt = 1 << 20

    init(virtualRoot: String, realRoot: String) {
        self.virtualRoot = virtualRoot
        self.realRoot = realRoot
    }

    /// `path` as the kernel must see it; a relative name is left as it is.
    func real(_ path: String) -> String {
        guard path.hasPrefix(virtualRoot) else { return path }
        return realRoot + path.dropFirst(virtualRoot.count)
    }

    /// inotify, on the real directory.
    var watcher: (any FileWatcher)? {
        live.watcher.map { RelocatedWatcher(live: $0, relocated: self) }
    }

    private struct RelocatedWatcher: FileWatcher {
        let live: any FileWatcher
        let relocated: RelocatedFileSystem
        var kind: WatcherKind { live.kind }

        func watch(directory: URL, handler: @escaping @Sendable (FileWatchEvent) -> Void) throws -> FileWatchToken {
            try live.watch(directory: URL(fileURLWithPath: relocated.real(directory.path)), handler: handler)
        }

        func cancel(_ token: FileWatchToken) { live.cancel(token) }
    }

    private func real(_ file: FileDescriptor) -> FileDescriptor { FileDescriptor(rawValue: file.rawValue - Self.offset) }
    private func real(_ file: FileDescriptor?) -> FileDescriptor? { file.map(real) }

    func open(_ path: String, _ mode: OpenMode, in directory: FileDescriptor?) throws(Errno) -> FileDescriptor {
        let file = try live.open(real(path), mode, in: real(directory))
        return FileDescriptor(rawValue: file.rawValue + Self.offset)
    }

    func close(_ file: FileDescriptor) { live.close(real(file)) }
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try live.read(real(file), into: buffer, at: offset)
    }
    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try live.write(real(file), bytes, at: offset)
    }
    func resize(_ file: FileDescriptor, to size: Int) throws(Errno) { try live.resize(real(file), to: size) }
    func sync(_ file: FileDescriptor) throws(Errno) { try live.sync(real(file)) }
    func syncData(_ file: FileDescriptor) throws(Errno) { try live.syncData(real(file)) }
    func status(_ file: FileDescriptor) throws(Errno) -> FileStatus { try live.status(real(file)) }
    func status(_ path: String, followingLinks: Bool) throws(Errno) -> FileStatus {
        try live.status(real(path), followingLinks: followingLinks)
    }
    func makeDirectory(_ path: String, in directory: FileDescriptor?) throws(Errno) {
        try live.makeDirectory(real(path), in: real(directory))
    }
    func rename(_ from: String, in fromDirectory: FileDescriptor?, to: String, in toDirectory: FileDescriptor?) throws(Errno) {
        try live.rename(real(from), in: real(fromDirectory), to: real(to), in: real(toDirectory))
    }
    func exchange(_ first: String, _ second: String) throws(Errno) { try live.exchange(real(first), real(second)) }
    func link(_ existing: String, as new: String) throws(Errno) { try live.link(real(existing), as: real(new)) }
    func unlink(_ path: String) throws(Errno) { try live.unlink(real(path)) }
    func entries(ofDirectory path: String) throws(Errno) -> [String] { try live.entries(ofDirectory: real(path)) }
    func lock(_ file: FileDescriptor, byte: Int64, exclusive: Bool) throws(Errno) -> Bool {
        try live.lock(real(file), byte: byte, exclusive: exclusive)
    }
    func unlock(_ file: FileDescriptor, byte: Int64) { live.unlock(real(file), byte: byte) }
    func isLocked(_ file: FileDescriptor, byte: Int64) throws(Errno) -> Bool { try live.isLocked(real(file), byte: byte) }
}
