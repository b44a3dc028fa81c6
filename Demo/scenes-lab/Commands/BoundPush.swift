import ArgumentParser
import Foundation
import Observation
import SceneNavigation
import SceneStore
import ScenesCLIKit

/// One window of an app that embeds SceneNavigation: an `@Observable`
/// model bound to a path key, pushing elements at a person's pace, then
/// quitting (`close()`). Two of them at once on one scene are the
/// two-windows-pushing test.
struct BoundPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bound-push",
        abstract: "Push onto a bound path at random gaps, then quit (for the binding tests)."
    )

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @Option(help: "The path's key.") var key = "mixed.path"
    @Option(help: "How many elements to push.") var count = 12
    @Option(help: "Push the strings TAG-0, TAG-1, ... (this window reads Ints and Strings).") var tag: String?
    @Option(help: "Push the Ints N, N+1, ... instead, as a window that reads Int elements only.") var intBase: Int?
    @Option(help: "Gaps between pushes are drawn from 1...MAX milliseconds.") var maxGapMs = 15

    func validate() throws {
        guard (tag == nil) != (intBase == nil) else { throw ValidationError("give one of --tag and --int-base") }
    }

    func run() async throws {
        let registry = try await rootOptions.openRegistry(readOnly: false, watcher: .automatic)
        let store = try await registry.store(for: try sceneOption.sceneID())
        let types = intBase != nil ? ScenePathTypes([.init(Int.self)]) : ScenePathTypes([.init(Int.self), .init(String.self)])
        let binding = PathBinding(store: store, key: key, codec: .scenePath(types: types))
        let (tag, intBase) = (tag, intBase)
        let bound = try await Self.push(binding: binding, count: count, maxGap: maxGapMs) { index, path in
            if let intBase { path.append(intBase + index) } else { path.append("\(tag ?? "")-\(index)") }
        }
        try await registry.close()
        if let error = await bound.lastError { emit("error after close: \(error)") }
        emit("done")
    }

    @MainActor
    private static func push(
        binding: PathBinding<ScenePath>, count: Int, maxGap: Int, element: (Int, inout ScenePath) -> Void
    ) async throws -> BoundPath {
        let window = Window()
        let bound = binding.bind(\.path, on: window)
        emit("ready \(getpid())")
        // Both windows start together: the test sends "go" to each. The
        // window's model is released when this returns, right after its
        // last push, as a window closing with the app; the binding lives
        // on to the registry's close, which hands that push over.
        _ = await Task.detached { readLine() }.value
        for index in 0..<count {
            try await Task.sleep(for: .milliseconds(Int.random(in: 1...max(1, maxGap))))
            element(index, &window.path)
        }
        return bound
    }
}

@Observable @MainActor
private final class Window {
    var path = ScenePath()
}
