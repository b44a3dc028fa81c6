import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The Library catalog on disk: `<root>/catalog/library.json`, in a folder
/// of its own so that it is never mistaken for a scene file.
///
/// Same rules as scene files: neither the folder nor the file is ever
/// followed if it is a symbolic link (`O_NOFOLLOW`; such a catalog is an
/// error and nothing is written through it); the folder is created 0700,
/// the file 0600; a write goes to a temp file that is `fsync`ed and
/// renamed over the catalog, under an exclusive `flock` on the folder, so
/// readers see the old or the new catalog and two writers never interleave.
struct CatalogFile: Sendable {
    static let folderName = "catalog"
    static let fileName = "library.json"
    /// Larger than any catalog a person edits; a bigger file is not read.
    static let maxBytes = 16 << 20

    let root: URL
    let url: URL

    init(root: URL) {
        self.root = root
        url = root.appendingPathComponent(Self.folderName, isDirectory: true)
            .appendingPathComponent(Self.fileName, isDirectory: false)
    }

    enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case notFollowed(path: String, what: String)
        case io(syscall: String, path: String, errno: Int32)

        var description: String {
            switch self {
            case .unreadable(let path, let reason):
                "cannot read the catalog \(path): \(reason)"
            case .notFollowed(let path, let what):
                "\(path) is \(what): the catalog is never read or written through it"
            case .io(let syscall, let path, let code):
                "\(syscall)(\(path)) failed: \(String(cString: strerror(code))) (errno \(code))"
            }
        }
    }

    /// The catalog, written with ``LibraryCatalog/defaults`` first if the
    /// file does not exist yet.
    /// - Throws: ``Failure/unreadable(path:reason:)`` for a file that is not
    ///   a catalog (it is left as it is), ``Failure/notFollowed(path:what:)``
    ///   for a symlink, or the error writing the defaults.
    func load() throws -> LibraryCatalog {
        if let catalog = try loadIfPresent() { return catalog }
        return try update { _ in }
    }

    /// The catalog, or ``LibraryCatalog/defaults`` without writing anything
    /// when there is no file yet.
    func loadWithoutCreating() throws -> LibraryCatalog {
        try loadIfPresent() ?? .defaults
    }

    /// Replaces the catalog with `catalog`.
    func save(_ catalog: LibraryCatalog) throws {
        try update { $0 = catalog }
    }

    /// Reads the catalog (the defaults if there is none), lets `change`
    /// edit it and writes the result, all under the folder's lock, so no
    /// other writer's edit is lost in between.
    /// - Returns: the catalog as written.
    @discardableResult
    func update(_ change: (inout LibraryCatalog) throws -> Void) throws -> LibraryCatalog {
        guard let folder = try openFolder(creating: true) else {
            throw Failure.io(syscall: "open", path: url.deletingLastPathComponent().path, errno: ENOENT)
        }
        defer { close(folder) }
        try retrying("flock", url.deletingLastPathComponent().path) { flock(folder, LOCK_EX) }
        var catalog = try read(in: folder) ?? .defaults
        try change(&catalog)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try write(encoder.encode(catalog), in: folder)
        return catalog
    }

    // MARK: Files

    private func loadIfPresent() throws -> LibraryCatalog? {
        guard let folder = try openFolder(creating: false) else { return nil }
        defer { close(folder) }
        return try read(in: folder)
    }

    /// The catalog folder, opened without following a symlink; created
    /// (with the root, 0700) when `creating`, else `nil` if missing.
    private func openFolder(creating: Bool) throws -> Int32? {
        let folderPath = url.deletingLastPathComponent().path
        if creating {
            try FileManager.default.createDirectory(
                at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let rootFD = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if rootFD == -1 {
            if errno == ENOENT && !creating { return nil }
            throw Failure.io(syscall: "open", path: root.path, errno: errno)
        }
        defer { close(rootFD) }
        if creating, mkdirat(rootFD, Self.folderName, 0o700) == -1, errno != EEXIST {
            throw Failure.io(syscall: "mkdir", path: folderPath, errno: errno)
        }
        let folder = openat(rootFD, Self.folderName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if folder == -1 {
            switch errno {
            case ENOENT where !creating: return nil
            case ELOOP, ENOTDIR:
                var info = stat()
                let isLink = fstatat(rootFD, Self.folderName, &info, AT_SYMLINK_NOFOLLOW) == 0
                    && info.st_mode & S_IFMT == S_IFLNK
                throw Failure.notFollowed(path: folderPath, what: isLink ? "a symbolic link" : "not a folder")
            case let code: throw Failure.io(syscall: "open", path: folderPath, errno: code)
            }
        }
        return folder
    }

    /// The decoded catalog, or `nil` if there is no file.
    private func read(in folder: Int32) throws -> LibraryCatalog? {
        let fd = openat(folder, Self.fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd == -1 {
            switch errno {
            case ENOENT: return nil
            case ELOOP: throw Failure.notFollowed(path: url.path, what: "a symbolic link")
            case let code: throw Failure.io(syscall: "open", path: url.path, errno: code)
            }
        }
        defer { close(fd) }
        var info = stat()
        try retrying("fstat", url.path) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Failure.notFollowed(path: url.path, what: "not a regular file")
        }
        guard info.st_size <= Self.maxBytes else {
            throw Failure.unreadable(path: url.path, reason: "\(info.st_size) bytes, more than \(Self.maxBytes)")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = try retrying("read", url.path) { buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
            guard data.count <= Self.maxBytes else {
                throw Failure.unreadable(path: url.path, reason: "more than \(Self.maxBytes) bytes")
            }
        }
        do {
            return try JSONDecoder().decode(LibraryCatalog.self, from: data)
        } catch {
            throw Failure.unreadable(path: url.path, reason: "\(error)")
        }
    }

    /// Temp file (`O_EXCL|O_NOFOLLOW`, 0600), all bytes, `fsync`, `rename`
    /// over the catalog, `fsync` of the folder. Call with the folder locked.
    private func write(_ bytes: Data, in folder: Int32) throws {
        var info = stat()
        if fstatat(folder, Self.fileName, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT != S_IFREG {
            let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"
            throw Failure.notFollowed(path: url.path, what: what)
        }
        let tempName = ".\(Self.fileName)~tmp-\(UInt64.random(in: 0...UInt64.max))"
        let tempPath = url.deletingLastPathComponent().appendingPathComponent(tempName).path
        var fd = try retrying("open", tempPath) {
            openat(folder, tempName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        defer { if fd != -1 { close(fd) } }
        do {
            try bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    offset += try retrying("write", tempPath) {
                        Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                    }
                }
            }
            try retrying("fsync", tempPath) { fsync(fd) }
            let closing = fd
            fd = -1
            try retrying("close", tempPath) { close(closing) }
            try retrying("rename", url.path) { renameat(folder, tempName, folder, Self.fileName) }
        } catch {
            unlinkat(folder, tempName, 0)
            throw error
        }
        try retrying("fsync", url.deletingLastPathComponent().path) { fsync(folder) }
    }
}

/// Runs a system call until it does not fail with `EINTR`.
/// - Throws: ``CatalogFile/Failure/io(syscall:path:errno:)`` on `-1`.
@discardableResult
private func retrying<Result: BinaryInteger>(
    _ name: String, _ path: String, _ call: () -> Result
) throws -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        if errno != EINTR { throw CatalogFile.Failure.io(syscall: name, path: path, errno: errno) }
    }
}
