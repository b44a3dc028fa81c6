import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension CrossProcessSync {
    /// Four real processes each add 1 to one key 250 times with `update`:
    /// the counter ends at exactly 1000.
    @Suite struct UpdateCounterTests {
        // Hang guard: it took 3 s here (2 cores); 1 minute, at least 4 times that.
        @Test(.timeLimit(.minutes(1)))
        func fourProcessesTimes250IncrementsEndAtThousand() async throws {
            let fixture = try await SceneStoreFixture()
            let writers = try (0..<4).map { _ in
                try RunningScenes(["stress", "--scene", "c", "--increment", "count", "--count", "250"] + contendedWriter, root: fixture.root, program: .lab)
            }
            for writer in writers {
                #expect(await writer.exitStatus(within: .seconds(90)) == 0)
            }
            let disk = try await onDisk("c", root: fixture.root)
            #expect(disk.values["count"] == .int(1000))
            print("update counter: 4 processes x 250 increments -> \(disk.values["count"].map { "\($0)" } ?? "nothing")")
            await fixture.tearDown()
        }
    }
}
