import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// No file descriptor left (EMFILE), in a `scenes` process of its own so
/// the shortage cannot disturb other tests: the flush fails with a typed
/// error, the value stays in memory, and the next flush saves it.
@Suite struct FileLimitTests {
    struct Report: Decodable {
        let error: String?
        let errno: Int32?
        let keptInMemory: Bool
        let savedAfter: Bool
    }

    /// The same for a save that writes a new scene whole (its lock file
    /// created, a temporary file, the directory synced) as for an append.
    @Test(arguments: [false, true])
    func runningOutOfDescriptorsFailsTypedAndLosesNothing(freshScene: Bool) async throws {
        let fixture = try await SceneStoreFixture()
        let report = try await probe(freshScene ? ["--fresh-scene"] : [], root: fixture.root)
        #expect(report.errno == EMFILE, "\(report.error ?? "the flush did not fail")")
        #expect(report.keptInMemory && report.savedAfter)
        if freshScene {
            #expect(try await onDisk("fresh", root: fixture.root).values == ["during": .string("during")])
            #expect(try await onDisk("main", root: fixture.root).values == ["before": .string("before")])
        } else {
            let disk = try await onDisk("main", root: fixture.root)
            #expect(disk.values == ["before": .string("before"), "during": .string("during")])
        }
        await fixture.tearDown()
    }

    /// Runs `scenes-lab probe file-limit` with `options` and reads its report.
    private func probe(_ options: [String], root: URL) async throws -> Report {
        let result = try await scenes(["probe", "file-limit"] + options, root: root, program: .lab)
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(decodeJSON(Report.self, from: line), "\(result.stdout)")
    }
}
