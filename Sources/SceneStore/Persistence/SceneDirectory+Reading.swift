import Foundation
import SystemPackage

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
        let file: OpenFile
        switch try openToRead(path) {
        case .opened(let opened): file = opened
        case .missing: return .missing
        case .symbolicLink: return .notADocument("a symbolic link, not followed")
        }
        let info = try file.status()
        guard info.kind == .regular else {
            return .notADocument("not a regular file")
        }
        if let tooLarge = StoredDocument.tooLarge(size: info.size) { return tooLarge }
        // Read the size fstat gave, straight into the result: an append
        // after it is a later version (the reader sees the one before).
        let size = info.size
        if let cursor, size >= cursor.offset, try startsWithHead(file, of: cursor) {
            let tail = try file.read(at: cursor.offset, count: size - cursor.offset)
            if tail.count == size - cursor.offset { return .continued(tail) }
        }
        return .bytes(try file.read(at: 0, count: size))
    }

    /// A scene file at `path` opened to read (``OpenMode/read``: never
    /// through a symbolic link, never blocking on a FIFO).
    func openToRead(_ path: String) throws(SceneStoreError) -> OpenedToRead {
        switch OpenFile.open(path, .read, system: system) {
        case .success(let file): return .opened(file)
        case .failure(.noSuchFileOrDirectory): return .missing
        case .failure(.tooManySymbolicLinkLevels): return .symbolicLink
        case .failure(let errno): throw .io(syscall: "open", path: path, errno: errno)
        }
    }

    /// What ``openToRead(_:)`` found at a path.
    enum OpenedToRead: ~Copyable {
        case opened(OpenFile)
        case missing
        /// Not followed.
        case symbolicLink

        /// The file, if it was opened.
        consuming func descriptor() -> OpenFile? {
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
        guard (try? startsWithHead(file, of: position)) == true else { return false }
        return withUnsafeTemporaryAllocation(byteCount: 4, alignment: 1) { end in
            guard let count = try? file.read(into: end, at: position.offset) else { return false }
            return end[..<count].allSatisfy { $0 == 0 }
        }
    }

    /// Whether `file` starts with the head `position` read.
    func startsWithHead(_ file: borrowing OpenFile, of position: LogPosition) throws(SceneStoreError) -> Bool {
        try withUnsafeTemporaryAllocation(byteCount: position.headCount, alignment: 8) { (head) throws(SceneStoreError) in
            let count = try file.read(into: head, at: 0)
            return position.isHead(UnsafeRawBufferPointer(rebasing: head[..<count]))
        }
    }
}
