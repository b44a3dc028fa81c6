import Foundation
import SceneNavigation
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// The demo keeps its stacks losslessly: an element another (newer) demo
/// stored that this one cannot show stays in the scene.
// Hang guard: its slowest test took 2 s in its layer here, 57 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct DemoNavigationPersistenceTests {
    @Test func theDemoKeepsAnElementOfTheMixedPathItCannotShow() async throws {
        let fixture = try await SceneStoreFixture()
        // A newer demo stored a Date between two numbers.
        let newer = ScenePathTypes([.init(Int.self), .init(String.self), .init(Date.self)])
        var path = ScenePath()
        path.append(1)
        path.append(Date(timeIntervalSinceReferenceDate: 0))
        path.append(2)
        let written = try path.encoded(types: newer).base64EncodedString()
        #expect(try await scenes(["set", "--scene", "main", "mixed.path", "--data-base64", written], root: fixture.root).status == 0)

        _ = try await scenes(["run", "--scene", "main", "--headless"], root: fixture.root, stdin: "push 3\nquit\n")

        let printed = try await scenes(["get", "--scene", "main", "mixed.path", "--raw"], root: fixture.root).stdout
        let data = try #require(Data(base64Encoded: printed.trimmingCharacters(in: .whitespacesAndNewlines)))
        var expected = path
        expected.append(3)
        #expect(try ScenePath.restore(from: data, types: newer, policy: .strict).path == expected)
    }
}
