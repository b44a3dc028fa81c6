import SceneStore

/// Waiting on a stream without sleeping: the first element that matches,
/// or `nil` once `timeout` has passed or the sequence finished. The timeout
/// only bounds a test that would otherwise hang; it never decides success.
extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// The first element that matches `predicate`, or `nil` once `timeout`
    /// has passed or the sequence finished.
    public func first(
        within timeout: Duration = .seconds(120),
        where predicate: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                do {
                    for try await element in self where predicate(element) { return element }
                } catch {}
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

    /// The first `count` elements, or those that arrived before `timeout`
    /// passed or the sequence finished.
    public func prefix(
        _ count: Int, within timeout: Duration = .seconds(120)
    ) async -> [Element] {
        let collected = Locked<[Element]>([])
        _ = await first(within: timeout) { element in
            collected.withLock {
                $0.append(element)
                return $0.count == count
            }
        }
        return collected.withLock { $0 }
    }
}
