import Foundation
import SystemPackage
internal import CSceneSupport
#if canImport(Glibc)
import Glibc
#endif

/// Reading a scene file: never through a symlink, never blocking on a
/// FIFO, never more than the limits allow.
extension SceneDirectory {
    /// The scene file's bytes. Never follows a symlink and never blocks on
    /// a FIFO.
    ///
    /// - Parameter skip: when given, a large file's header (and a log's
    ///   last record, ``peekVersion(of:size:path:)``) is read first, and if
    ///   it names a version `skip` accepts, the result is
    ///   ``StoredDocument/skipped``: a store reading back its own save reads
    ///   a few kilobytes, not the scene. The rest comes from the same
    ///   descriptor, so it is the same file either way.
    func readBytes(_ id: SceneID, skip: ((DiskVersion) -> Bool)? = nil) throws(SceneStoreError) -> StoredDocument {
        try readBytes(id, skip: skip, holdingLock: false)
    }

    /// ``readBytes(_:skip:)``, the scene's lock held or not; the first
    /// reading of a scene cleans what crashed writers left of it.
    func readBytes(
        _ id: SceneID, skip: ((DiskVersion) -> Bool)?, holdingLock: Bool
    ) throws(SceneStoreError) -> StoredDocument {
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
        if let tooLarge = StoredDocument.tooLarge(size: Int(info.st_size), limits: limits) { return tooLarge }
        // Read the size fstat gave, straight into the result: an append
        // after it is a later version (the reader sees the one before). A
        // small file is read in one call; a large one header (and a log's
        // last record) first when `skip` may spare the rest.
        let size = Int(info.st_size)
        if let skip, size > StoredDocument.wholeReadBytes,
           let peeked = try peekVersion(of: fd, size: size, path: path), skip(peeked.version) {
            return .skipped
        }
        let data = try readWhole(fd, size: size, path: path)
        // A small file's header rules are those of every storage.
        if size <= StoredDocument.wholeReadBytes { return StoredDocument(data, skip: skip, limits: limits) }
        return .bytes(data)
    }

    /// The first `size` bytes (the size `fstat` gave) of the file open as
    /// `fd`, read straight into the result: an append after the `fstat`
    /// is a later version, not read; a file that shrank meanwhile gives
    /// fewer bytes (damage, for the caller's parser to judge).
    func readWhole(_ fd: Int32, size: Int, path: String) throws(SceneStoreError) -> Data {
        try PositionalIO.read(fd, at: 0, count: size, path: path)
    }

    /// A scene file (or the windows' index) at `path` opened to read
    /// (``scenestore_open_to_read``: never through a symbolic link, never
    /// blocking on a FIFO); the caller closes it.
    func openToRead(_ path: String) throws(SceneStoreError) -> OpenedToRead {
        do {
            return .opened(Descriptor(adopting: try syscall("open", path: path) { scenestore_open_to_read(path) }))
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
    /// first bytes hash as they did then and the log's end (`"\n]}"`) is
    /// still at `position.offset` (an append after it writes a `,` there).
    /// Reads those few bytes, into buffers on the stack (the file watcher's
    /// thread runs this on every event of the scene); any error or doubt
    /// is `false`. A FIFO or a directory at the path fails the reads.
    func logEnds(_ id: SceneID, at position: LogPosition) -> Bool {
        let path = scenePath(id)
        guard let file = try? openToRead(path).descriptor() else { return false }
        let fd = file.raw
        guard (try? startsWithHead(fd, of: position, path: path)) == true else { return false }
        let closing = SceneFile.logClosing
        return withUnsafeTemporaryAllocation(byteCount: closing.count, alignment: 1) { end in
            (try? PositionalIO.read(fd, into: end, at: position.offset, path: path)) == closing.count
                && end.elementsEqual(closing)
        }
    }

    /// Whether the file open as `fd` starts with the head `position` read.
    func startsWithHead(_ fd: Int32, of position: LogPosition, path: String) throws(SceneStoreError) -> Bool {
        try withUnsafeTemporaryAllocation(byteCount: position.headCount, alignment: 8) { (head) throws(SceneStoreError) in
            let count = try PositionalIO.read(fd, into: head, at: 0, path: path)
            return position.isHead(UnsafeRawBufferPointer(rebasing: head[..<count]))
        }
    }

    /// The bytes of scene `id`'s file after `position.offset`, when it
    /// goes on from `position` (its first bytes are still the ones read
    /// then: no whole write since), reaches past that
    /// offset and is within the limits; `nil` otherwise. Appends only ever
    /// write after a log's end, so the bytes before `position` are the ones
    /// read then.
    func readLog(_ id: SceneID, after position: LogPosition) throws(SceneStoreError) -> Data? {
        // A whole write since makes a new head.
        guard let scene = try openScene(id), try startsWithHead(scene.file.raw, of: position, path: scene.path) else { return nil }
        let size = Int(scene.info.st_size)
        guard size > position.offset, StoredDocument.tooLarge(size: size, limits: limits) == nil else { return nil }
        let tail = try PositionalIO.read(scene.file.raw, at: position.offset, count: size - position.offset, path: scene.path)
        return tail.count == size - position.offset ? tail : nil
    }
}
