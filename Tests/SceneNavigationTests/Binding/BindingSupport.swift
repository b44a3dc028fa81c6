import Dispatch
import Foundation
import Logging
import Observation
@testable import SceneNavigation
import SceneStore
import SceneStoreTesting

/// The registry of a process that does not know `String` elements.
let intOnlyTypes = ScenePathTypes([.init(Int.self)])

/// A path of `Int`s and `String`s, written as a literal list.
func scenePath(_ elements: [any ScenePathElement]) -> ScenePath {
    var path = ScenePath()
    for element in elements {
        switch element {
        case let number as Int: path.append(number)
        case let text as String: path.append(text)
        default: preconditionFailure("test paths hold Ints and Strings only")
        }
    }
    return path
}

/// The bytes a writer that knows every test type stores for `elements`.
func encodedPath(_ elements: [any ScenePathElement], types: ScenePathTypes = testTypes) throws -> Data {
    try scenePath(elements).encoded(types: types)
}

/// An `@Observable` path that records every value it is set to, and can
/// run a hook inside the setter (on the main actor, before anyone else
/// reads the new value).
@Observable @MainActor
final class RecordingModel {
    var path = ScenePath() {
        didSet { sets.append(path) }
    }

    @ObservationIgnored var sets: [ScenePath] = []

    /// Waits until `predicate` holds for `path` (checked now, then at each
    /// change), or `timeout` passes.
    func wait(within timeout: Duration = .seconds(30), until predicate: @escaping @Sendable (ScenePath) -> Bool) async -> Bool {
        await observedValue({ self.path }, within: timeout, until: predicate) != nil
    }
}

/// Collects the local changes a store makes to one key (writes this
/// registry made), until cancelled.
final class LocalWrites: Sendable {
    // `Locked` (NSLock), not `Mutex`: ThreadSanitizer cannot see a Mutex on
    // Linux and reports its correct use as a race (see .ci/tsan).
    private final class Recorded: Sendable {
        let values = Locked<[SceneValue?]>([])
    }

    private let recorded = Recorded()
    private let task: Task<Void, Never>

    init(of store: SceneStore, key: String) {
        let changes = store.changes()
        let recorded = self.recorded
        task = Task {
            for await change in changes where change.key == key && change.origin == .local {
                recorded.values.withLock { $0.append(change.newValue) }
            }
        }
    }

    var values: [SceneValue?] { recorded.values.withLock { $0 } }

    deinit { task.cancel() }
}

extension PathBinding {
    /// Sets `path` in the store's memory over what the key holds, keeping
    /// in place what this process cannot restore, without the scene lock:
    /// the merge a commit makes, as a window whose commit could not get
    /// through hands its edit to the store (`write(_:from:)`, internal).
    func write(_ path: Path) throws {
        _ = try write(path, from: nil)
    }
}
