import Foundation
import ScenesCLIKit

extension AsyncStream where Element: Sendable {
    /// The first element matching `predicate`, or nil after `timeout`.
    func first(within timeout: Duration, where predicate: @escaping @Sendable (Element) -> Bool) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                for await element in self where predicate(element) { return element }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
