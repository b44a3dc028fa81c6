import Foundation
import SystemPackage

/// Every error SceneStore throws. Each case carries what a log line or a
/// caller needs to act: the scene, the key, the path, the syscall, the errno.
public enum SceneStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A scene id outside `[A-Za-z0-9._-]{1,128}`, or starting with `.`.
    case invalidSceneID(String, reason: String)
    /// A key that is empty, longer than `limit` UTF-8 bytes, or holds a NUL.
    case invalidKey(String, limit: Int)
    /// One value larger than `limit` bytes once encoded.
    case valueTooLarge(key: String, size: Int, limit: Int)
    /// A write that would make the scene larger than `limit` bytes.
    case sceneTooLarge(scene: String, key: String, size: Int, limit: Int)
    /// A system call failed, with the error it set (`.noSpace` for a full
    /// disk, `.tooManyOpenFiles`, `.readOnlyFileSystem` ...).
    case io(syscall: String, path: String, errno: Errno)
    /// The scene file was written by a newer SceneStore (format `version`);
    /// it is left untouched and the scene cannot be opened.
    case unsupportedFormat(scene: String, version: Int, path: String)
    /// The registry or store was closed.
    case closed(scene: String?)
    /// A file watcher could not be set up.
    case watcherUnavailable(reason: String)
    /// Another process held the scene's lock for longer than `waited`
    /// (stopped, or stuck on a slow disk); nothing was written.
    /// `holderPID` is `nil` when the system does not say who holds it.
    case lockTimeout(scene: String, holderPID: Int32?, waited: Duration)
    /// A generation that cannot grow further was found in the scene file.
    case generationExhausted(scene: String)
    /// `key` holds a value of another kind than its ``SceneKey`` reads
    /// (`expected`); nothing was written.
    case wrongType(key: String, stored: String, expected: String)
    /// A write (set, flush, discard) to a store of a registry opened
    /// read-only (``SceneRegistry/Configuration/readOnly``); nothing was changed.
    case readOnly(scene: String)
    /// The scenes' storage (a database) cannot be reached or refused the
    /// request; `location` names it without a password. Nothing was
    /// written, and the values stay in memory.
    case storageUnavailable(location: String, reason: String)
    /// A storage location (`postgres://...`) that cannot be used as given.
    case invalidStorageLocation(String, reason: String)
    /// A file SceneStore keeps (the root's lock file) is something else at
    /// its path (a FIFO, a directory, a device); nothing was written.
    case notARegularFile(path: String, found: String)
    /// Window scene `scene` is held by another live process: it was not
    /// closed for good (``SceneRegistry/closeForGood(_:)``).
    case windowInUse(scene: String)
    /// `key` holds data its model key cannot read: not a stored model, a
    /// model of another tag, JSON that no longer decodes as the key's
    /// model, or a migration step threw. Nothing was written.
    case unreadableModel(key: String, tag: String, reason: String)
    /// `key` holds a model of a newer schema version than its key reads;
    /// it is never decoded nor written over.
    case newerModel(key: String, tag: String, stored: Int, supported: Int)
    /// The model could not be encoded (a `Double` that is not a number,
    /// say); nothing was written.
    case unencodableModel(key: String, tag: String, reason: String)

    public var description: String {
        switch self {
        case .invalidSceneID(let id, let reason):
            "invalid scene id \(id.debugDescription): \(reason)"
        case .invalidKey(let key, let limit):
            "invalid key \(key.debugDescription): a key is 1 to \(limit) UTF-8 bytes without NUL"
        case .valueTooLarge(let key, let size, let limit):
            "value for key \(key.debugDescription) is \(size) bytes; the limit is \(limit)"
        case .sceneTooLarge(let scene, let key, let size, let limit):
            "setting \(key.debugDescription) would make scene \(scene.debugDescription) \(size) bytes; the limit is \(limit)"
        case .io(let syscall, let path, let errno):
            "\(syscall)(\(path)) failed: \(errno) (errno \(errno.rawValue))"
        case .unsupportedFormat(let scene, let version, let path):
            "scene \(scene.debugDescription) at \(path) has format version \(version), newer than this SceneStore understands; left untouched"
        case .closed(let scene):
            if let scene { "scene \(scene.debugDescription) is closed" } else { "the registry is closed" }
        case .watcherUnavailable(let reason):
            "file watcher unavailable: \(reason)"
        case .lockTimeout(let scene, let holder, let waited):
            "scene \(scene.debugDescription) is locked by \(holder.map { "pid \($0)" } ?? "another process"); gave up after \(waited)"
        case .wrongType(let key, let stored, let expected):
            "key \(key.debugDescription) holds a \(stored), not a \(expected); nothing was written"
        case .generationExhausted(let scene):
            "scene \(scene.debugDescription) has a generation that cannot grow; its file is treated as damaged"
        case .readOnly(let scene):
            "scene \(scene.debugDescription) is open read-only; nothing was changed"
        case .storageUnavailable(let location, let reason):
            "scene storage \(location) is unavailable: \(reason)"
        case .invalidStorageLocation(let location, let reason):
            "invalid scene storage \(location.debugDescription): \(reason)"
        case .notARegularFile(let path, let found):
            "\(path) is a \(found), not a regular file; remove it (nothing was written)"
        case .windowInUse(let scene):
            "window scene \(scene.debugDescription) is open in another process; it was left as it is"
        case .unreadableModel(let key, let tag, let reason):
            "key \(key.debugDescription) holds no readable \(tag.debugDescription) model: \(reason)"
        case .newerModel(let key, let tag, let stored, let supported):
            "key \(key.debugDescription) holds \(tag.debugDescription) version \(stored); this code reads up to version \(supported)"
        case .unencodableModel(let key, let tag, let reason):
            "\(tag.debugDescription) for key \(key.debugDescription) could not be encoded: \(reason)"
        }
    }
}
