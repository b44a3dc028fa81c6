import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files of a registry's root directory, and every system call made on
/// them. Layout:
///
/// * `<id>.json` — the scene file (0600), replaced only by `rename`;
/// * `.<id>.lock` — the scene's lock file for `flock`;
/// * `.<id>.json.tmp-<token>` — a save in progress;
/// * `.<id>.json.prev-<token>` — the previous version, kept alive by a hard
///   link across the rename and unlinked after it, off the critical path;
/// * `quarantine/` — damaged scene files moved aside, never deleted.
struct SceneDirectory: Sendable {
    static let sceneSuffix = ".json"
    static let quarantineFolder = "quarantine"

    let root: URL

    func sceneURL(_ id: SceneID) -> URL {
        root.appendingPathComponent(id.rawValue + Self.sceneSuffix, isDirectory: false)
    }

    func lockURL(_ id: SceneID) -> URL {
        root.appendingPathComponent("." + id.rawValue + ".lock", isDirectory: false)
    }

    /// The scene a root entry belongs to, if it is a scene file.
    static func sceneID(forFileNamed name: String) -> SceneID? {
        guard name.hasSuffix(sceneSuffix), !name.hasPrefix(".") else { return nil }
        return try? SceneID(String(name.dropLast(sceneSuffix.count)))
    }

    // MARK: Root

    /// Creates the root (and missing parents) with mode 0700.
    static func prepare(root: URL) throws(SceneStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .io(syscall: "mkdir", path: root.path, errno: ENOTDIR)
            }
            return
        }
        var missing: [URL] = []
        var cursor = root.standardizedFileURL
        while !FileManager.default.fileExists(atPath: cursor.path), cursor.path != "/" {
            missing.append(cursor)
            cursor = cursor.deletingLastPathComponent()
        }
        for directory in missing.reversed() {
            let result = mkdir(directory.path, 0o700)
            if result == -1 && errno != EEXIST {
                throw .io(syscall: "mkdir", path: directory.path, errno: errno)
            }
        }
    }

    /// Takes the scene's lock, creating the root again (mode 0700) if it
    /// was deleted while the registry was open.
    func lock(_ id: SceneID) throws(SceneStoreError) -> SceneLock {
        do {
            return try SceneLock(path: lockURL(id).path)
        } catch .io("open", _, ENOENT) {
            try Self.prepare(root: root)
            return try SceneLock(path: lockURL(id).path)
        }
    }

    /// The scenes that have a file in the root.
    func sceneIDs() throws(SceneStoreError) -> [SceneID] {
        guard let directory = opendir(root.path) else {
            throw .io(syscall: "opendir", path: root.path, errno: errno)
        }
        defer { closedir(directory) }
        var ids: [SceneID] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if let id = Self.sceneID(forFileNamed: name) { ids.append(id) }
        }
        return ids.sorted()
    }

    // MARK: Reading

    enum ReadResult {
        case missing
        case file(SceneFile)
        /// Bytes that are not a scene file, or something that is not a
        /// regular file (a symlink is never followed).
        case damaged(SceneFile.Problem)
        case newerVersion(Int)
    }

    /// Reads and decodes the scene file without taking the lock (rename is
    /// atomic, so this sees one complete version).
    func read(_ id: SceneID) throws(SceneStoreError) -> ReadResult {
        switch try readBytes(id) {
        case .missing: .missing
        case .notRegular(let what): .damaged(.malformed(what))
        case .bytes(let data): Self.interpret(data)
        }
    }

    static func interpret(_ data: Data) -> ReadResult {
        switch SceneFile.decode(data) {
        case .success(let file): .file(file)
        case .failure(.newerVersion(let version)): .newerVersion(version)
        case .failure(let problem): .damaged(problem)
        }
    }

    enum RawRead {
        case missing
        case bytes(Data)
        /// A symlink (never followed), FIFO, directory, ...
        case notRegular(String)
    }

    /// The scene file's bytes. Never follows a symlink and never blocks on
    /// a FIFO.
    func readBytes(_ id: SceneID) throws(SceneStoreError) -> RawRead {
        let path = sceneURL(id).path
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd == -1 {
            switch errno {
            case ENOENT: return .missing
            case ELOOP: return .notRegular("a symbolic link, not followed")
            default: throw .io(syscall: "open", path: path, errno: errno)
            }
        }
        defer { close(fd) }
        var info = stat()
        try syscall("fstat", path: path) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .notRegular("not a regular file")
        }
        return .bytes(try readAll(fd, path: path, sizeHint: Int(info.st_size)))
    }

    private func readAll(_ fd: Int32, path: String, sizeHint: Int) throws(SceneStoreError) -> Data {
        var data = Data()
        data.reserveCapacity(sizeHint)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = try syscall("read", path: path) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    // MARK: Writing

    /// Writes `bytes` as the scene file atomically and durably: a new temp
    /// file (`O_CREAT|O_EXCL|O_NOFOLLOW`, 0600), all bytes, `fsync`, a hard
    /// link keeping the old version alive, `rename` over the scene file,
    /// `fsync` of the directory. Call with the scene lock held.
    ///
    /// - Returns: the link to the previous version, for the caller to
    ///   unlink after releasing the lock (``discardPrevious(_:)``).
    func write(_ bytes: Data, for id: SceneID) throws(SceneStoreError) -> URL? {
        let target = sceneURL(id).path
        let token = randomToken()
        let temp = root.appendingPathComponent(".\(id.rawValue)\(Self.sceneSuffix).tmp-\(token)").path
        let fd = try syscall("open", path: temp) {
            open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        do {
            try writeAll(bytes, to: fd, path: temp)
            try syscall("fsync", path: temp) { fsync(fd) }
            try syscall("close", path: temp) { close(fd) }
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        let previous = root.appendingPathComponent(".\(id.rawValue)\(Self.sceneSuffix).prev-\(token)")
        let linked = link(target, previous.path) == 0
        do {
            try syscall("rename", path: target) { rename(temp, target) }
        } catch {
            unlink(temp)
            if linked { unlink(previous.path) }
            throw error
        }
        try syncDirectory()
        return linked ? previous : nil
    }

    /// Unlinks the previous version's link, away from the caller's path: on
    /// ext4 with online discard, freeing the old blocks costs about a
    /// millisecond that no save needs to wait for.
    static func discardPrevious(_ previous: URL?) {
        guard let previous else { return }
        cleanupQueue.async { unlink(previous.path) }
    }

    private static let cleanupQueue = DispatchQueue(label: "SceneStore.cleanup", qos: .utility)

    private func writeAll(_ bytes: Data, to fd: Int32, path: String) throws(SceneStoreError) {
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if written == -1 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw .io(syscall: "write", path: path, errno: failure) }
    }

    func syncDirectory() throws(SceneStoreError) {
        let fd = try syscall("open", path: root.path) { open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        try syscall("fsync", path: root.path) { fsync(fd) }
    }

    /// Removes the scene file (a discard). Call with the scene lock held.
    func removeScene(_ id: SceneID) throws(SceneStoreError) {
        let path = sceneURL(id).path
        if unlink(path) == -1 && errno != ENOENT {
            throw .io(syscall: "unlink", path: path, errno: errno)
        }
        try syncDirectory()
    }

    /// Moves a damaged scene file (or whatever stands in its place) into
    /// `quarantine/`, keeping it as evidence. Call with the scene lock held.
    func quarantine(_ id: SceneID, reason: String) throws(SceneStoreError) -> URL {
        let folder = root.appendingPathComponent(Self.quarantineFolder, isDirectory: true)
        if mkdir(folder.path, 0o700) == -1 && errno != EEXIST {
            throw .io(syscall: "mkdir", path: folder.path, errno: errno)
        }
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        let destination = folder.appendingPathComponent("\(id.rawValue)-\(stamp)-\(reason)-\(randomToken().prefix(6))\(Self.sceneSuffix)")
        let source = sceneURL(id).path
        try syscall("rename", path: source) { rename(source, destination.path) }
        try syncDirectory()
        return destination
    }

    /// Deletes temp files and previous-version links that crashed writers
    /// left for this scene. Call with the scene lock held: a live writer
    /// only has a temp file while it holds the lock.
    func removeLeftovers(of id: SceneID) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return }
        for name in names where Self.leftoverOwner(name) == id {
            unlink(root.appendingPathComponent(name).path)
        }
    }

    /// The scenes that crashed writers left temp files or previous-version
    /// links for: one listing of the root, when a registry opens it.
    func scenesWithLeftovers() -> Set<SceneID> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return [] }
        return Set(names.compactMap(Self.leftoverOwner))
    }

    /// `main` for `.main.json.tmp-…` or `.main.json.prev-…`.
    private static func leftoverOwner(_ name: String) -> SceneID? {
        guard name.hasPrefix(".") else { return nil }
        for marker in [sceneSuffix + ".tmp-", sceneSuffix + ".prev-"] {
            if let range = name.range(of: marker, options: .backwards) {
                return try? SceneID(String(name[name.index(after: name.startIndex)..<range.lowerBound]))
            }
        }
        return nil
    }
}
