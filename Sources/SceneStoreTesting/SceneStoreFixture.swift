import Foundation
import SceneStore
import SystemPackage

/// A scene root in a fresh temporary directory, for an app's own tests:
/// simulate a relaunch, a crash, a second process, against the real disk.
///
/// ```swift
/// let fixture = try await SceneStoreFixture()
/// try fixture.registry.store(for: "main").set(3, forKey: "tab")
/// try await fixture.registry.store(for: "main").flush()
/// let relaunched = try await fixture.relaunch()
/// #expect(try relaunched.store(for: "main").value(forKey: "tab", default: 0) == 3)
/// ```
///
/// With `inMemory`, the directory is made in `/dev/shm`, a file system in
/// memory: the same files, locks, appends and inotify events as on a disk,
/// and no disk's latency (an `fsync` there returns at once), for an app's
/// tests that are not about durability.
///
/// The directory is removed by ``tearDown()`` or, at the latest, when the
/// fixture is deallocated; one in memory that a killed test process left
/// is removed by the next fixture in memory. By default stores save as an app's do
/// (`SceneRegistry.Configuration.testing`: the library's default save
/// policy, `.coalesced` 30 ms), so an isolated `set` reaches the disk at
/// once, and what ``crash()`` keeps is what was saved by then. A test that
/// states exactly what is durable asks for saves only on `flush()` and
/// close: `SceneStoreFixture(configuration: .testing(savePolicy: .onFlush))`.
public final class SceneStoreFixture: Sendable {
    /// The registries' root: `<temporary directory>/scenes`, created by the
    /// first registry with mode 0700.
    public let root: URL
    /// The temporary directory holding ``root``.
    public let directory: URL
    /// The configuration every registry of the fixture opens with.
    public let configuration: SceneRegistry.Configuration

    private let registries: Locked<(current: SceneRegistry, others: [SceneRegistry])>

    /// Creates the temporary root and opens the first registry on it.
    /// - Parameters:
    ///   - configuration: the registries' (`.testing` by default).
    ///   - inMemory: the root in `/dev/shm` (a memory file system; the
    ///     temporary directory where there is none).
    public init(configuration: SceneRegistry.Configuration = .testing, inMemory: Bool = false) async throws {
        var base = FileManager.default.temporaryDirectory
        var name = "scenestore-XXXXXX"
        if inMemory, access(Self.memory.path, W_OK) == 0 {
            Self.removeAbandoned()
            (base, name) = (Self.memory, "scenestore-\(getpid())-XXXXXX")
        }
        var template = Array(base.appendingPathComponent(name).path.utf8CString)
        let made = try syscall("mkdtemp", path: base.path) {
            template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        }
        directory = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        root = directory.appendingPathComponent("scenes", isDirectory: true)
        self.configuration = configuration
        registries = Locked((try await SceneRegistry(root: root, configuration: configuration), []))
    }

    /// The registry of the current "launch".
    public var registry: SceneRegistry {
        registries.withLock { $0.current }
    }

    /// Quits gracefully (closing the registry flushes every store) and
    /// launches again on the same root.
    /// - Returns: the new registry, also ``registry`` from now on.
    @discardableResult
    public func relaunch() async throws -> SceneRegistry {
        try await registry.close()
        return try await replaceCurrent()
    }

    /// Dies as `kill -9` would: everything not yet flushed is dropped, no
    /// stream is told anything more than that it finished, nothing is
    /// written. Then launches again on the same root.
    /// - Returns: the new registry, also ``registry`` from now on.
    @discardableResult
    public func crash() async throws -> SceneRegistry {
        registry.abandon()
        return try await replaceCurrent()
    }

    /// Another registry on the same root, in this process, with its own
    /// writer identity, lock descriptor (open file description locks
    /// exclude per open file, so the two exclude each other) and watcher:
    /// it meets the current
    /// registry only through the disk, as another process's would. For a
    /// real second process, launch your app's executable on ``root``.
    public func otherRegistry(configuration: SceneRegistry.Configuration? = nil) async throws -> SceneRegistry {
        let other = try await SceneRegistry(root: root, configuration: configuration ?? self.configuration)
        registries.withLock { $0.others.append(other) }
        return other
    }

    /// Closes every registry and deletes the temporary directory.
    public func tearDown() async {
        let all = registries.withLock { [$0.current] + $0.others }
        for registry in all { try? await registry.close() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A file system in memory (tmpfs) on every Linux system that runs systemd or a container runtime.
    private static let memory = URL(fileURLWithPath: "/dev/shm", isDirectory: true)

    /// Removes the directories in memory of test processes that are gone
    /// (killed before their fixtures were deallocated): a directory there
    /// holds memory until the next boot. Its name carries its process's pid.
    private static func removeAbandoned() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: memory.path)) ?? [] {
            let fields = name.split(separator: "-")
            guard fields.count == 3, fields[0] == "scenestore", let pid = pid_t(fields[1]),
                  (try? syscall("kill", path: "pid \(pid)", unless: .noSuchProcess) { kill(pid, 0) }) == .some(nil)
            else { continue }
            try? FileManager.default.removeItem(at: memory.appendingPathComponent(name))
        }
    }

    private func replaceCurrent() async throws -> SceneRegistry {
        let next = try await SceneRegistry(root: root, configuration: configuration)
        registries.withLock { $0.current = next }
        return next
    }

    deinit {
        let all = registries.withLock { [$0.current] + $0.others }
        for registry in all { registry.abandon() }
        try? FileManager.default.removeItem(at: directory)
    }
}

extension SceneRegistry.Configuration {
    /// For tests: as in production (the library's default save policy,
    /// `.coalesced(.milliseconds(30))`), except that a scene's lock is waited for up
    /// to two minutes, not ten seconds. On a test machine an `fsync` can
    /// take seconds while the disk writes back a build's output, and a test
    /// of registries taking turns should fail on a lost write, never on a
    /// slow disk (a test of the timeout sets its own).
    public static var testing: Self {
        SceneRegistry.Configuration(lockTimeout: .seconds(120))
    }

    /// ``testing`` with another save policy: `.testing(savePolicy: .onFlush)`
    /// saves only on `flush()` and close, so that a test decides exactly
    /// what is durable (what a crash keeps, when another registry sees a
    /// change).
    public static func testing(savePolicy: SceneRegistry.SavePolicy) -> Self {
        var configuration = testing
        configuration.savePolicy = savePolicy
        return configuration
    }
}
