import Foundation
import SceneStore
import ScenesCLIKit

extension Stress {
    /// What `stress --converge` prints after its writes, as `view <json>`:
    /// this process's view of the scene, each time it changes.
    struct View: Encodable, Equatable {
        /// `CLOCK_MONOTONIC` nanoseconds when this view was seen.
        var at: Int
        var generation: UInt64
        var keys: Int
        /// The value of `--same-key`, if given.
        var value: String?

        func isSameView(as other: View?) -> Bool {
            guard let other else { return false }
            return generation == other.generation && keys == other.keys && value == other.value
        }
    }

    /// Prints `view <json>` now and after every change of `store` (another
    /// process's save reloaded here) until stdin closes.
    func reportViews(of store: SceneStore) async {
        let changes = store.changes()
        let sameKey = self.sameKey
        let view: @Sendable () -> View = {
            View(at: monotonicNanoseconds(), generation: store.generation, keys: store.snapshot.count,
                 value: sameKey.flatMap { store.value(forKey: $0, as: String.self) })
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var last: View?
                let report: (View) -> Void = { current in
                    guard !current.isSameView(as: last) else { return }
                    last = current
                    if let line = try? jsonLine(current) { emit("view \(line)") }
                }
                report(view())
                for await _ in changes { report(view()) }
            }
            group.addTask { await standardInputClosed() }
            await group.next()
            group.cancelAll()
        }
    }
}
