import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore

/// The file root's saves when a system call fails: a full disk, an I/O
/// error in a write or a sync, the open-file limit, a failed exchange.
/// The production save path runs over ``FaultyFileSystem``, so each
/// runs without root or a small disk. In every case the flush throws the
/// call's error, memory keeps every value, what another registry reads is
/// a version that was stored, no temporary file is left behind, and once
/// the fault is gone the next flush stores everything.
@Suite struct FileFaultTests {
    enum Case: String, CaseIterable, Sendable {
        case fullDiskOnAnAppend, ioErrorInAnAppendsSyncAndItsRewrite, openFileLimitOnAnAppend, fullDiskOnAWholeWrite
        case ioErrorInAWholeWritesSync, openFileLimitOnANewFile, ioErrorInTheExchange

        /// The fault, the call and the errno the flush reports.
        var fault: (FileFaults.Fault, FileFaults.Call, syscall: String, errno: Int32) {
            switch self {
            case .fullDiskOnAnAppend: (.space(16), .pwrite, "pwrite", ENOSPC)
            // The append's fdatasync fails too (``alsoFailing``); the whole
            // write that then replaces the file reports its fsync's error.
            case .ioErrorInAnAppendsSyncAndItsRewrite: (.error(EIO), .fsync, "fsync", EIO)
            case .openFileLimitOnAnAppend: (.error(EMFILE), .open, "open", EMFILE)
            case .fullDiskOnAWholeWrite: (.space(100), .pwrite, "pwrite", ENOSPC)
            case .ioErrorInAWholeWritesSync: (.error(EIO), .fsync, "fsync", EIO)
            case .openFileLimitOnANewFile: (.error(EMFILE), .open, "open", EMFILE)
            case .ioErrorInTheExchange: (.error(EIO), .exchange, "renameat2", EIO)
            }
        }

        /// Whether the failing save writes the scene whole: the first save
        /// of a scene does, a save over a stored version appends a record.
        var wholeWrite: Bool {
            switch self {
            case .fullDiskOnAnAppend, .ioErrorInAnAppendsSyncAndItsRewrite, .openFileLimitOnAnAppend: false
            default: true
            }
        }

        /// A call that fails as well, before the one whose error is reported.
        var alsoFailing: FileFaults.Call? {
            self == .ioErrorInAnAppendsSyncAndItsRewrite ? .fdatasync : nil
        }
    }

    /// A fresh root, and a registry on it whose calls fail as `faults` says.
    private static func faultyRegistry() async throws -> (SceneStoreFixture, FileFaults, SceneRegistry, SceneStore) {
        let fixture = try await SceneStoreFixture()
        try SceneDirectory(root: fixture.root).prepare()
        let faults = FileFaults()
        let registry = await SceneRegistry(storage: SceneDirectory(root: fixture.root, system: FaultyFileSystem(faults)),
            configuration: .testing(savePolicy: .onFlush))
        return (fixture, faults, registry, try await registry.store(for: "main"))
    }

    /// An append whose `fdatasync` fails is not trusted to a later sync
    /// (Linux may have dropped its pages): the scene is written whole
    /// under the same lock, and the flush succeeds.
    @Test func anAppendWhoseSyncFailsIsWrittenWhole() async throws {
        let (fixture, faults, registry, store) = try await Self.faultyRegistry()
        try store.set("before", forKey: "kept")
        try await store.flush()
        let identity = try FileManager.default.attributesOfItem(atPath: fixture.root.appendingPathComponent("main.scene").path)[.systemFileNumber]
        faults.inject(.error(EIO), into: .fdatasync)
        try store.set("after", forKey: "kept")
        try await store.flush()
        #expect(faults.count(of: .fdatasync) > 0)
        #expect(try FileManager.default.attributesOfItem(atPath: fixture.root.appendingPathComponent("main.scene").path)[.systemFileNumber] as? Int != identity as? Int, "not written whole")
        try await registry.close()
        #expect(try await Self.read(fixture.root) == ["kept": .string("after")])
        await fixture.tearDown()
    }

    @Test(arguments: Case.allCases)
    func aFailedCallFailsTheFlushAndLosesNothing(_ failure: Case) async throws {
        let (fixture, faults, registry, store) = try await Self.faultyRegistry()
        let stored: [String: SceneValue]
        if failure.wholeWrite {
            stored = [:]
        } else {
            try store.set("before", forKey: "kept")
            try await store.flush()
            stored = ["kept": .string("before")]
        }

        let (fault, call, syscall, code) = failure.fault
        faults.inject(fault, into: call)
        if let also = failure.alsoFailing { faults.inject(fault, into: also) }
        try store.set(String(repeating: "x", count: 4096), forKey: "big")
        let thrown = await #expect(throws: SceneStoreError.self) { try await store.flush() }
        guard case .io(let name, _, let errno)? = thrown else {
            Issue.record("not an I/O error: \(String(describing: thrown))")
            return
        }
        #expect(name == syscall)
        #expect(errno.rawValue == code)
        #expect(faults.count(of: call) > 0)
        #expect(store.value(forKey: "big", default: "").count == 4096, "memory lost the value")
        #expect(try await Self.read(fixture.root).filter { stored.keys.contains($0.key) } == stored)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root.path).allSatisfy { !$0.contains("~tmp-") })

        faults.clear()
        try await store.flush()
        try await registry.close()
        let after = try await Self.read(fixture.root)
        #expect(after == stored.merging(["big": .string(String(repeating: "x", count: 4096))]) { $1 })
        await fixture.tearDown()
    }

    /// Scene `main` as a registry of the live file system reads it.
    private static func read(_ root: URL) async throws -> [String: SceneValue] {
        var configuration = SceneRegistry.Configuration.testing
        configuration.watcher = .none
        configuration.readOnly = true
        let registry = try await SceneRegistry(root: root, configuration: configuration)
        let values = try await registry.store(for: "main").snapshot
        try await registry.close()
        return values
    }
}
