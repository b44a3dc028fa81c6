import Foundation
import Testing
@testable import SceneStore

/// A file operation that fails or refuses keeps no descriptor open on the
/// file it opened (descriptors close themselves: ``Descriptor``). Each
/// case plants something hostile at one path, runs the operation and
/// looks in /proc/self/fd for a descriptor of that path.
@Suite struct DescriptorLeakTests {
    enum Case: String, CaseIterable, Sendable {
        /// The root's lock file is a FIFO: refused after the open.
        case lockFileIsAFIFO
        /// The scene file is a directory: opened, refused after the fstat.
        case sceneFileIsADirectory
        /// The index of windows is a FIFO: refused after the open.
        case windowsSceneIsAFIFO
        /// The scene's file is a directory when a record is appended to it.
        case appendToADirectory
    }

    @Test(arguments: Case.allCases)
    func aRefusedFileKeepsNoDescriptor(_ hostile: Case) async throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("scenestore-leak-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = SceneDirectory(root: root)
        let id = SceneID("main")
        let planted: String
        switch hostile {
        case .lockFileIsAFIFO:
            planted = directory.locks.path
            #expect(mkfifo(planted, 0o600) == 0)
            #expect(throws: SceneStoreError.self) { _ = try directory.lock(.scene(id)) }
        case .sceneFileIsADirectory:
            planted = directory.scenePath(id)
            #expect(mkdir(planted, 0o700) == 0)
            guard case .notADocument = try directory.read(id, after: nil, holdingLock: false) else {
                Issue.record("a directory read as a scene file")
                return
            }
        case .windowsSceneIsAFIFO:
            planted = directory.scenePath(.windows)
            #expect(mkfifo(planted, 0o600) == 0)
            guard case .notADocument = try directory.read(.windows, after: nil, holdingLock: false) else {
                Issue.record("a FIFO read as the windows' scene")
                return
            }
        case .appendToADirectory:
            planted = directory.scenePath(id)
            #expect(mkdir(planted, 0o700) == 0)
            let version = DiskVersion(incarnation: "00000000000000aa", generation: 1)
            #expect(try directory.append(Array("{}".utf8), to: id, over: version, sizeLimit: 1 << 20) == false)
        }
        #expect(ProcessProbe.descriptors(linkingTo: planted).isEmpty, "a descriptor of \(planted) is still open")
    }
}
