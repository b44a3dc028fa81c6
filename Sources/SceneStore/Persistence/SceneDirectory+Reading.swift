import Foundation
import SystemPackage
internal import CSceneSupport
#if canImport(Glibc)
import Glibc
#endif

/// Reading a scene file: never through a symlink, never blocking on a
/// FIFO, never more than the limits allow.
extension SceneDirectory {
    /// The scene file's bytes, or only those after `cursor` when the file
    /// still goes on from there (``SceneStorage/read(_:after:)``): its
    /// first bytes are the ones `cursor` read (appends only ever write
    /// after a log's end, and a whole write makes a new head) and it
    /// reaches as far. Never follows a symlink and never blocks on a
    /// FIFO. The first reading of a scene, its lock held or not, cleans
    /// what crashed writers left of it.
    func read(_ id: SceneID, after cursor: LogPosition?, holdingLock: Bool) throws(SceneStoreError) -> StoredDocument {
        try removeLeftoversOnce(of: id, holdingLock: holdingLock)
        let path = scenePath(id)
        let file: Descriptor
        switch try openToRead(path) {
        case .opened(let opened): file = opened
        case .missing: return .missing
        case .symbolicLink: return .notADocument("a symbolic link, not followed")
        }
        let fd = file.raw
        var info = stat()
        try syscall("statx", path: path) { scenestore_fstat_untimed(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .notADocument("not a regular file")
        }
        if let tooLarge = StoredDocument.tooLarge(size: Int(info.st_size)) { return tooLarge }
        // Read the size fstat gave, straight into the result: an append
        // after it is a later version (the reader sees the one before).
        let size = Int(info.st_size)
        if let cursor, size >= cursor.offset, try startsWithHead(fd, of: cursor, path: path) {
            let tail = try PositionalIO.read(fd, at: cursor.offset, count: size - cursor.offset, path: path)
            if tail.count == size - cursor.offset { return .continued(tail) }
        }
        return .bytes(try readWhole(fd, size: size, path: path))
    }

    /// The first `size` bytes (the size `fstat` gave) of the file open as
    /// `fd`, read straight into the result: an append after the `fstat`
    /// is a later version, not read; a file that shrank meanwhile gives
    /// fewer bytes (damage, for the caller's parser to judge).
    func readWhole(_ fd: Int32, size: Int, path: String) throws(SceneStoreError) -> Data {
        try PositionalIO.read(fd, at: 0, count: size, path: path)
    }

    /// A scene file at `path` opened to read
    /// (``scenestore_open_to_read``: never through a symbolic link, never
    /// blocking on a FIFO); the caller closes it.
    func openToRead(_ path: String) throws(SceneStoreError) -> OpenedToRead {
        do {
            return .opened(Descriptor(adopting: try syscall("open", path: path) { path.withCString { scenestore_open_to_read($0) } }))
        } catch .io(_, _, .noSuchFileOrDirectory) {
            return .missing
        } catch .io(_, _, .tooManySymbolicLinkLevels) {
            return .symbolicLink
        } catch {
            throw error
        }
    }

    /// What ``openToRead(_:)`` found at a path.
    enum OpenedToRead: ~Copyable {
        case opened(Descriptor)
        case missing
        /// Not followed.
        case symbolicLink

        /// The descriptor, if the file was opened.
        consuming func descriptor() -> Descriptor? {
            switch consume self {
            case .opened(let file): file
            case .missing: nil
            case .symbolicLink: nil
            }
        }
    }

    /// Whether scene `id`'s file still ends its log at `position`: its
    /// first bytes hash as they did then and a zero length (or the file's
    /// end) is still at `position.offset` (an append after it writes a
    /// length there). Reads those few bytes, into buffers on the stack
    /// (the file watcher's thread runs this on every event of the scene);
    /// any error or doubt is `false`. A FIFO or a directory at the path
    /// fails the reads.
    func logEnds(_ id: SceneID, at position: LogPosition) -> Bool {
        let path = scenePath(id)
        guard let file = try? openToRead(path).descriptor() else { return false }
        let fd = file.raw
        guard (try? startsWithHead(fd, of: position, path: path)) == true else { return false }
        return withUnsafeTemporaryAllocation(byteCount: 4, alignment: 1) { end in
            guard let count = try? PositionalIO.read(fd, into: end, at: position.offset, path: path) else { return false }
            return end[..<count].allSatisfy { $0 == 0 }
        }
    }

    /// Whether the file open as `fd` starts with the head `position` read.
    func startsWithHead(_ fd: Int32, of position: LogPosition, path: String) throws(SceneStoreError) -> Bool {
        try withUnsafeTemporaryAllocation(byteCount: position.headCount, alignment: 8) { (head) throws(SceneStoreError) in
            let count = try PositionalIO.read(fd, into: head, at: 0, path: path)
            return position.isHead(UnsafeRawBufferPointer(rebasing: head[..<count]))
        }
    }
}
