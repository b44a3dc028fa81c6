import Foundation
@testable import SceneStore
import SystemPackage

/// A file system in memory that decides what survives a power loss, for
/// the production storage to run over: each file's bytes and each
/// directory's names exist twice, as the running system sees them and as
/// the disk holds them. `fsync`/`fdatasync` of a file make its bytes
/// durable, `fsync` of a directory its names (a new or renamed name is
/// durable only then, as on ext4 without `auto_da_alloc`). ``powerLoss(_:)``
/// puts every file and directory back as the disk holds it, after the kill
/// mode has its way with what was not synced, and forgets every
/// descriptor and lock (every process died). Open file description locks
/// are per descriptor (no descriptor here is duplicated).
///
/// `lyingSync` makes every sync return success and keep nothing: a disk
/// that acknowledges and drops, which a checker must catch.
final class SimulatedFileSystem: FileSystem {
    /// What a power loss does to what was written but not synced
    /// (FoundationDB's kill modes).
    enum KillMode: Sendable, CaseIterable {
        /// Nothing unsynced survives.
        case dropAll
        /// Each unsynced 512-byte sector of a file, and each unsynced change
        /// of a directory's names, survives or not, as the seed says.
        case tornSectors
        /// As ``tornSectors``, but an unsynced sector that does not survive
        /// holds random bytes (FoundationDB's full corruption): only a
        /// checksum tells a record torn so from a whole one.
        case scribbled
    }

    struct Inode: Sendable {
        var isDirectory: Bool
        var bytes: [UInt8] = []
        var durableBytes: [UInt8] = []
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        /// The 512-byte sectors a failed `fsync` left dirty: as Linux does
        /// with pages whose writeback failed, they count as clean, so no
        /// later sync writes them until they are written again (the disk
        /// keeps what it had there).
        var lostSectors: Set<Int> = []

        /// What a sync can put on the disk: the running bytes, but the
        /// lost sectors as the disk holds them.
        var writable: [UInt8] {
            guard !lostSectors.isEmpty else { return bytes }
            var image = bytes
            for sector in lostSectors {
                for index in sector * 512..<min(sector * 512 + 512, image.count) {
                    image[index] = index < durableBytes.count ? durableBytes[index] : 0
                }
            }
            return image
        }

        /// A sync of this file failed: its dirty sectors are lost.
        mutating func writebackFailed() {
            for sector in stride(from: 0, to: bytes.count, by: 512) {
                let end = min(sector + 512, bytes.count)
                if end > durableBytes.count || bytes[sector..<end] != durableBytes[sector..<end] {
                    lostSectors.insert(sector / 512)
                }
            }
        }
    }

    struct World: Sendable {
        var inodes: [Int: Inode] = [1: Inode(isDirectory: true)]
        var nextInode = 2
        /// Open descriptors and the inode each names.
        var open: [CInt: Int] = [:]
        var nextDescriptor: CInt = 3
        /// Per inode, per byte: the descriptors holding it, exclusive or not.
        var locks: [Int: [Int64: [CInt: Bool]]] = [:]
        var random: UInt64
        /// The fallible call (open, write, resize, a sync, mkdir, rename,
        /// exchange, link) that fails, counted from 1; the faults fired.
        var failingCall: Int?
        var calls = 0
        var fired: [String] = []
        /// What each open descriptor was opened as, and whether it wrote.
        var openedAs: [CInt: (parent: Int, name: String, written: Bool)] = [:]
        /// The simulated inotify's watches (SimulatedInotify.swift).
        var watches: [UInt64: SimulatedInotify.Watch] = [:]
        var nextWatch: UInt64 = 1
        /// Whether the next `fsync` of a directory fails (`EIO`), and how
        /// many of the next syncs of files do.
        var failNextSync: (directory: Bool, files: Int) = (false, 0)
        /// Replaced versions to unlink (``unlinkLater(_:)``), when the
        /// simulation says (``unlinkDeferred()``).
        var deferredUnlinks: [String] = []
    }

    /// What a failing call does, as ``failCall(_:)`` sets it up.
    enum Fault: Sendable, Hashable, CustomStringConvertible {
        case error(Errno)
        /// A write that writes half its bytes (then the next one fails).
        case shortWrite

        var description: String {
            switch self {
            case .error(let errno): "\(errno)"
            case .shortWrite: "short write"
            }
        }
    }

    /// Makes the `number`th fallible call from now fail, with a fault the
    /// seed picks among those the call can meet.
    func failCall(_ number: Int) {
        world.withLock { world in
            world.failingCall = world.calls + number
        }
    }

    /// Makes the next `fsync` of a directory fail with `EIO`.
    func failNextDirectorySync() {
        world.withLock { $0.failNextSync.directory = true }
    }

    /// Makes the next `count` syncs (`fsync`, `fdatasync`) of files fail
    /// with `EIO`, each losing its file's dirty sectors (``Inode/lostSectors``).
    func failNextFileSyncs(_ count: Int = 1) {
        world.withLock { $0.failNextSync.files = count }
    }

    /// No call fails from now on.
    func stopFaults() {
        world.withLock { $0.failingCall = nil }
    }

    /// The faults that fired, each with its call.
    var firedFaults: [String] { world.withLock { $0.fired } }

    let world: Locked<World>
    let lyingSync: Bool
    static let device: UInt64 = 0x5eed

    /// Whether the simulated inotify drops one of the events it delivers
    /// without telling (no overflow): a bug the checker must catch.
    let lossyInotify: Bool

    init(seed: UInt64, lyingSync: Bool = false, lossyInotify: Bool = false) {
        world = Locked(World(random: seed))
        self.lyingSync = lyingSync
        self.lossyInotify = lossyInotify
    }

    var watcher: (any FileWatcher)? { SimulatedInotify(system: self) }

    // MARK: FileSystem

    func open(_ path: String, _ mode: OpenMode, in directory: FileDescriptor?) throws(Errno) -> FileDescriptor {
        try world.withLock { world throws(Errno) in
            try world.failIfDue("open", mode == .read || mode == .directory(followingLink: true)
                ? [.tooManyOpenFiles, .ioError] : [.tooManyOpenFiles, .noSpace, .ioError])
            let (parent, name) = try world.parent(of: path, in: directory)
            var number = name.isEmpty ? parent : world.inodes[parent]?.names[name]
            switch mode {
            case .createNew where number != nil:
                throw .fileExists
            case .createNew, .writeCreating, .readWriteCreating:
                if number == nil {
                    let made = world.create(isDirectory: false)
                    world.inodes[parent]?.names[name] = made
                    world.changed(parent, name)
                    number = made
                }
            case .read, .write, .directory:
                guard number != nil else { throw .noSuchFileOrDirectory }
            }
            guard let number, let inode = world.inodes[number] else { throw .noSuchFileOrDirectory }
            switch mode {
            case .directory: guard inode.isDirectory else { throw .notDirectory }
            case .write, .writeCreating, .readWriteCreating, .createNew: guard !inode.isDirectory else { throw .isDirectory }
            case .read: break
            }
            let descriptor = world.nextDescriptor
            world.nextDescriptor += 1
            world.open[descriptor] = number
            world.openedAs[descriptor] = (parent, name, false)
            return FileDescriptor(rawValue: descriptor)
        }
    }

    func close(_ file: FileDescriptor) {
        world.withLock { world in
            guard let number = world.open.removeValue(forKey: file.rawValue) else { return }
            if let (parent, name, written) = world.openedAs.removeValue(forKey: file.rawValue), written {
                world.changed(parent, name)  // IN_CLOSE_WRITE
            }
            for byte in world.locks[number]?.keys.sorted() ?? [] { world.locks[number]?[byte]?[file.rawValue] = nil }
        }
    }

    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try world.withLock { world throws(Errno) in
            let inode = try world.inode(of: file)
            guard !inode.isDirectory else { throw .isDirectory }
            guard offset < inode.bytes.count else { return 0 }
            let count = min(buffer.count, inode.bytes.count - offset)
            inode.bytes.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            }
            return count
        }
    }

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try world.withLock { world throws(Errno) in
            let number = try world.number(of: file)
            guard var inode = world.inodes[number], !inode.isDirectory else { throw .badFileDescriptor }
            var bytes = bytes
            switch world.fault("pwrite", [.shortWrite, .error(.noSpace), .error(.ioError)]) {
            case .error(let errno)?: throw errno
            case .shortWrite?: bytes = UnsafeRawBufferPointer(rebasing: bytes.prefix(bytes.count / 2))
            case nil: break
            }
            if inode.bytes.count < offset + bytes.count {
                inode.bytes += [UInt8](repeating: 0, count: offset + bytes.count - inode.bytes.count)
            }
            inode.bytes.replaceSubrange(offset..<offset + bytes.count, with: bytes)
            world.openedAs[file.rawValue]?.written = true
            if !inode.lostSectors.isEmpty, !bytes.isEmpty {
                inode.lostSectors.subtract(offset / 512...(offset + bytes.count - 1) / 512)
            }
            world.inodes[number] = inode
            return bytes.count
        }
    }

    func resize(_ file: FileDescriptor, to size: Int) throws(Errno) {
        try world.withLock { world throws(Errno) in
            let number = try world.number(of: file)
            guard var inode = world.inodes[number] else { throw .badFileDescriptor }
            try world.failIfDue("ftruncate", [.ioError])
            if inode.bytes.count < size {
                inode.bytes += [UInt8](repeating: 0, count: size - inode.bytes.count)
            } else {
                inode.bytes.removeSubrange(size...)
            }
            world.inodes[number] = inode
        }
    }

    func sync(_ file: FileDescriptor) throws(Errno) {
        try world.withLock { world throws(Errno) in
            let number = try world.number(of: file)
            guard var inode = world.inodes[number] else { throw .badFileDescriptor }
            do throws(Errno) {
                try world.failIfDue(inode.isDirectory ? "fsync(directory)" : "fsync", [.ioError])
                if inode.isDirectory, world.failNextSync.directory {
                    world.failNextSync.directory = false
                    throw .ioError
                }
                if !inode.isDirectory, world.failNextSync.files > 0 {
                    world.failNextSync.files -= 1
                    throw .ioError
                }
            } catch {
                if !inode.isDirectory { inode.writebackFailed() }
                world.inodes[number] = inode
                throw error
            }
            guard !lyingSync else { return }
            inode.durableBytes = inode.writable
            inode.durableNames = inode.names
            world.inodes[number] = inode
        }
    }

    func syncData(_ file: FileDescriptor) throws(Errno) {
        try sync(file)
    }

    func status(_ file: FileDescriptor) throws(Errno) -> FileStatus {
        try world.withLock { world throws(Errno) in world.status(try world.number(of: file)) }
    }

    func status(_ path: String, followingLinks: Bool) throws(Errno) -> FileStatus {
        try world.withLock { world throws(Errno) in
            let (parent, name) = try world.parent(of: path, in: nil)
            guard let number = name.isEmpty ? parent : world.inodes[parent]?.names[name] else {
                throw .noSuchFileOrDirectory
            }
            return world.status(number)
        }
    }

    func makeDirectory(_ path: String, in directory: FileDescriptor?) throws(Errno) {
        try world.withLock { world throws(Errno) in
            try world.failIfDue("mkdir", [.noSpace, .ioError])
            let (parent, name) = try world.parent(of: path, in: directory)
            guard world.inodes[parent]?.names[name] == nil else { throw .fileExists }
            let made = world.create(isDirectory: true)
            world.inodes[parent]?.names[name] = made
        }
    }

    func rename(_ from: String, in fromDirectory: FileDescriptor?, to: String, in toDirectory: FileDescriptor?) throws(Errno) {
        try world.withLock { world throws(Errno) in
            try world.failIfDue("rename", [.noSpace, .ioError])
            let (source, name) = try world.parent(of: from, in: fromDirectory)
            let (target, newName) = try world.parent(of: to, in: toDirectory)
            guard let number = world.inodes[source]?.names.removeValue(forKey: name) else { throw .noSuchFileOrDirectory }
            world.inodes[target]?.names[newName] = number
            world.changed(source, name)
            world.changed(target, newName)
        }
    }

    func exchange(_ first: String, _ second: String) throws(Errno) {
        try world.withLock { world throws(Errno) in
            try world.failIfDue("renameat2", [.ioError])
            let (one, oneName) = try world.parent(of: first, in: nil)
            let (other, otherName) = try world.parent(of: second, in: nil)
            guard let a = world.inodes[one]?.names[oneName], let b = world.inodes[other]?.names[otherName] else {
                throw .noSuchFileOrDirectory
            }
            world.inodes[one]?.names[oneName] = b
            world.inodes[other]?.names[otherName] = a
            world.changed(one, oneName)
            world.changed(other, otherName)
        }
    }

    func link(_ existing: String, as new: String) throws(Errno) {
        try world.withLock { world throws(Errno) in
            try world.failIfDue("link", [.noSpace, .ioError])
            let (source, name) = try world.parent(of: existing, in: nil)
            let (target, newName) = try world.parent(of: new, in: nil)
            guard let number = world.inodes[source]?.names[name] else { throw .noSuchFileOrDirectory }
            guard world.inodes[target]?.names[newName] == nil else { throw .fileExists }
            world.inodes[target]?.names[newName] = number
            world.changed(target, newName)
        }
    }

    /// Kept until ``unlinkDeferred()``: the library's cleanup queue would
    /// unlink at a moment no seed decides.
    func unlinkLater(_ path: String) {
        world.withLock { $0.deferredUnlinks.append(path) }
    }

    /// Unlinks what ``unlinkLater(_:)`` kept, in the order it was asked.
    func unlinkDeferred() {
        for path in world.withLock({ world in defer { world.deferredUnlinks = [] }; return world.deferredUnlinks }) {
            try? unlink(path)
        }
    }

    func unlink(_ path: String) throws(Errno) {
        try world.withLock { world throws(Errno) in
            let (parent, name) = try world.parent(of: path, in: nil)
            guard let number = world.inodes[parent]?.names[name] else { throw .noSuchFileOrDirectory }
            guard world.inodes[number]?.isDirectory == false else { throw .isDirectory }
            world.inodes[parent]?.names[name] = nil
            world.changed(parent, name)
        }
    }

    func entries(ofDirectory path: String) throws(Errno) -> [String] {
        try world.withLock { world throws(Errno) in
            let (parent, name) = try world.parent(of: path, in: nil)
            guard let number = name.isEmpty ? parent : world.inodes[parent]?.names[name],
                  let inode = world.inodes[number] else { throw .noSuchFileOrDirectory }
            guard inode.isDirectory else { throw .notDirectory }
            // In the order the files were made (as ext4's readdir often
            // is): not by name, which holds a random token for temporary
            // files, so one seed lists (and cleans) in one order.
            return inode.names.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
        }
    }

    func lock(_ file: FileDescriptor, byte: Int64, exclusive: Bool) throws(Errno) -> Bool {
        try world.withLock { world throws(Errno) in
            let number = try world.number(of: file)
            let others = (world.locks[number]?[byte] ?? [:]).filter { $0.key != file.rawValue }
            guard !others.values.contains(true), !(exclusive && !others.isEmpty) else { return false }
            world.locks[number, default: [:]][byte, default: [:]][file.rawValue] = exclusive
            return true
        }
    }

    func unlock(_ file: FileDescriptor, byte: Int64) {
        world.withLock { world in
            guard let number = world.open[file.rawValue] else { return }
            world.locks[number]?[byte]?[file.rawValue] = nil
        }
    }

    func isLocked(_ file: FileDescriptor, byte: Int64) throws(Errno) -> Bool {
        try world.withLock { world throws(Errno) in
            let number = try world.number(of: file)
            return (world.locks[number]?[byte] ?? [:]).contains { $0.key != file.rawValue }
        }
    }
}
