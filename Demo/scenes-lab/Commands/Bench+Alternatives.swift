import CSQLite
import CSceneSupport
import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

/// One way a program could keep its scene state, measured the same way:
/// a scene of `keys` string values, then commits that change one value.
protocol CommitAlternative {
    var name: String { get }
    /// Whether a commit survives power loss (an fsync reached the disk).
    var durable: Bool { get }
    /// Files written (or transactions committed) since `prepare`.
    var writes: Int { get }
    mutating func prepare(keys: Int, in directory: URL) async throws
    mutating func commit(_ index: Int) async throws
    /// Stores `value` under `key` the way this alternative's users do on
    /// every change (SceneStore: only `set`; the others write at once).
    mutating func push(_ value: Data, forKey key: String) async throws
    /// Returns once everything pushed is as durable as this alternative
    /// makes it (SceneStore: `flush`; the others: already there).
    mutating func settle() async throws
    mutating func finish() async throws
    /// Whether the last commit wrote its scene whole (SceneStore: a
    /// compaction of its log); `false` for those that always write alike.
    mutating func committedWhole() -> Bool
}

extension CommitAlternative {
    mutating func settle() async throws {}
    mutating func committedWhole() -> Bool { false }
}

/// Where each alternative keeps a scene, for the processes that read it
/// back (`bench restore-child`).
enum AlternativeFiles {
    static let sceneStoreScene = "bench"
    static let floor = "scene.json"
    static let pathStore = "state.json"
    static let sqlite = "scene.sqlite"
    static func userDefaultsSuite(pid: Int32, keys: Int) -> String { "scenes-bench-\(pid)-\(keys)" }
}

/// SceneStore as an app uses it: `set` + `flush`. Writes are counted by
/// the scene file's generation, which grows by one with every save.
struct SceneStoreAlternative: CommitAlternative {
    let name = "scenestore"
    let durable = true
    let configuration: SceneRegistry.Configuration
    private var registry: SceneRegistry?
    private var store: SceneStore?
    private var preparedGeneration: UInt64 = 0
    private var file = ""
    /// The scene file's inode after the last commit: a whole write makes a
    /// new file, an appended record keeps it.
    private var inode: ino_t = 0

    /// Saves only on `flush` (one commit, one write) unless told otherwise,
    /// watched as by default (inotify): what the store's own watcher does
    /// with its records is part of what a commit costs.
    init(configuration: SceneRegistry.Configuration = .init(savePolicy: .onFlush)) {
        self.configuration = configuration
    }

    var writes: Int { Int((store?.generation ?? 0) - preparedGeneration) }

    mutating func prepare(keys: Int, in directory: URL) async throws {
        let registry = try await SceneRegistry(root: directory, configuration: configuration)
        let store = try await registry.store(for: AlternativeFiles.sceneStoreScene)
        for key in 0..<keys { try store.set("value number \(key)", forKey: "key\(key)") }
        try await store.flush()
        (self.registry, self.store, preparedGeneration) = (registry, store, store.generation)
        file = directory.appendingPathComponent("\(AlternativeFiles.sceneStoreScene).scene").path
        _ = committedWhole()
    }

    /// Looks at the inode without asking for the file's times: asking
    /// would make the next commit's sync write the inode as well
    /// (`scenestore_fstat_untimed`), a cost of this look, not of the store.
    mutating func committedWhole() -> Bool {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd != -1 else { return false }
        defer { close(fd) }
        var info = stat()
        guard scenestore_fstat_untimed(fd, &info) == 0 else { return false }
        defer { inode = info.st_ino }
        return info.st_ino != inode
    }

    mutating func commit(_ index: Int) async throws {
        try store?.set("value \(index)", forKey: "key0")
        try await store?.flush()
    }

    mutating func push(_ value: Data, forKey key: String) async throws {
        try store?.set(value, forKey: key)
    }

    mutating func settle() async throws { try await store?.flush() }

    mutating func finish() async throws { try await registry?.close() }
}

/// The floor: the bytes of such a scene written with plain system calls,
/// temp file + fsync + rename + directory fsync, nothing encoded.
struct FloorAlternative: CommitAlternative {
    let name = "floor (syscalls)"
    let durable = true
    private var payload = Data()
    private var directory = URL(fileURLWithPath: "/")
    private var directoryFD: Int32 = -1
    private(set) var writes = 0

    mutating func prepare(keys: Int, in directory: URL) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var values: [String: String] = [:]
        for key in 0..<keys { values["key\(key)"] = "value number \(key)" }
        payload = try JSONEncoder().encode(values)
        self.directory = directory
        directoryFD = open(directory.path, O_RDONLY | O_DIRECTORY)
    }

    mutating func commit(_ index: Int) async throws { try replaceFile(with: payload) }

    /// The bytes of the value alone: the floor encodes nothing.
    mutating func push(_ value: Data, forKey key: String) async throws { try replaceFile(with: value) }

    private mutating func replaceFile(with bytes: Data) throws {
        let temp = directory.appendingPathComponent(".scene.tmp").path
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw failure("floor: open failed: errno \(errno)") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            close(fd)
            throw failure("floor: write failed")
        }
        close(fd)
        guard rename(temp, directory.appendingPathComponent(AlternativeFiles.floor).path) == 0, fsync(directoryFD) == 0 else {
            throw failure("floor: rename failed")
        }
        writes += 1
    }

    mutating func finish() async throws { close(directoryFD) }
}

/// The "PathStore" pattern of the saving-paths notes: the whole state
/// encoded with JSONEncoder and written with `Data.write(to:options: .atomic)`
/// on every change (atomic, but no fsync: not durable across power loss).
struct PathStoreAlternative: CommitAlternative {
    let name = "PathStore pattern"
    let durable = false
    private var state: [String: String] = [:]
    private var file = URL(fileURLWithPath: "/")
    private(set) var writes = 0

    mutating func prepare(keys: Int, in directory: URL) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for key in 0..<keys { state["key\(key)"] = "value number \(key)" }
        file = directory.appendingPathComponent(AlternativeFiles.pathStore)
        try JSONEncoder().encode(state).write(to: file, options: .atomic)
    }

    mutating func commit(_ index: Int) async throws {
        state["key0"] = "value \(index)"
        try JSONEncoder().encode(state).write(to: file, options: .atomic)
        writes += 1
    }

    /// The whole state is the value (already encoded, as a path is): written as is.
    mutating func push(_ value: Data, forKey key: String) async throws {
        try value.write(to: file, options: .atomic)
        writes += 1
    }

    mutating func finish() async throws {}
}

/// Foundation's `UserDefaults(suiteName:)`, `set` + `synchronize()`, in a
/// suite of its own (a plist in the XDG config directory, removed by `finish`).
struct UserDefaultsAlternative: CommitAlternative {
    let name = "UserDefaults"
    let durable = false
    private var defaults: UserDefaults?
    private var suite = ""
    private(set) var writes = 0

    mutating func prepare(keys: Int, in directory: URL) async throws {
        suite = AlternativeFiles.userDefaultsSuite(pid: getpid(), keys: keys)
        guard let defaults = UserDefaults(suiteName: suite) else { throw failure("UserDefaults(suiteName:) refused") }
        for key in 0..<keys { defaults.set("value number \(key)", forKey: "key\(key)") }
        defaults.synchronize()
        self.defaults = defaults
    }

    mutating func commit(_ index: Int) async throws {
        defaults?.set("value \(index)", forKey: "key0")
        defaults?.synchronize()
        writes += 1
    }

    mutating func push(_ value: Data, forKey key: String) async throws {
        defaults?.set(value, forKey: key)
        defaults?.synchronize()
        writes += 1
    }

    mutating func finish() async throws {
        defaults?.removePersistentDomain(forName: suite)
    }
}

/// SQLite in WAL mode with `synchronous=FULL`, one upsert per commit (each
/// its own transaction): what many apps pick for durable local state.
struct SQLiteAlternative: CommitAlternative {
    let name = "SQLite WAL FULL"
    let durable = true
    private var database: OpaquePointer?
    private var upsert: OpaquePointer?
    private(set) var writes = 0

    mutating func prepare(keys: Int, in directory: URL) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard sqlite3_open(directory.appendingPathComponent(AlternativeFiles.sqlite).path, &database) == SQLITE_OK else {
            throw failure("sqlite3_open failed")
        }
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
        try execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;")
        try execute("BEGIN;")
        guard sqlite3_prepare_v2(database, "INSERT INTO kv (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value;", -1, &upsert, nil) == SQLITE_OK else {
            throw failure("sqlite3_prepare_v2 failed")
        }
        for key in 0..<keys { try put("key\(key)", "value number \(key)") }
        try execute("COMMIT;")
    }

    mutating func commit(_ index: Int) async throws {
        try put("key0", "value \(index)")
        writes += 1
    }

    /// One upsert of the value as a blob, its own transaction.
    mutating func push(_ value: Data, forKey key: String) async throws {
        try upsert(key) { statement in
            value.withUnsafeBytes { _ = sqlite3_bind_blob(statement, 2, $0.baseAddress, Int32($0.count), scenes_sqlite_transient()) }
        }
        writes += 1
    }

    mutating func finish() async throws {
        sqlite3_finalize(upsert)
        sqlite3_close(database)
    }

    private func put(_ key: String, _ value: String) throws {
        try upsert(key) { sqlite3_bind_text($0, 2, value, -1, scenes_sqlite_transient()) }
    }

    /// Runs the upsert of `key` with the value `bindValue` binds as parameter 2.
    private func upsert(_ key: String, bindValue: (OpaquePointer?) -> Void) throws {
        sqlite3_bind_text(upsert, 1, key, -1, scenes_sqlite_transient())
        bindValue(upsert)
        defer { sqlite3_reset(upsert) }
        guard sqlite3_step(upsert) == SQLITE_DONE else { throw failure("sqlite3_step failed") }
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw failure("sqlite: \(String(cString: sqlite3_errmsg(database)))")
        }
    }
}

/// Every alternative, SceneStore configured as given, in the table's order.
func commitAlternatives(sceneStore: SceneStoreAlternative = SceneStoreAlternative()) -> [any CommitAlternative] {
    [sceneStore, FloorAlternative(), PathStoreAlternative(), UserDefaultsAlternative(), SQLiteAlternative()]
}
