/// Waiting on a stream without sleeping: the first element that matches,
/// or `nil` once `timeout` has passed or the sequence finished. The timeout
/// only bounds a test that would otherwise hang; it never decides success.
extension AsyncSequence where Self: Sendable, Element: Sendable {
    public func first(
        within timeout: Duration = .seconds(10),
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

    /// The first `count` elements, or fewer if `timeout` passed or the
    /// sequence finished first.
    public func prefix(
        _ count: Int, within timeout: Duration = .seconds(10)
    ) async -> [Element] {
        await withTaskGroup(of: [Element]?.self) { group in
            group.addTask {
                var collected: [Element] = []
                do {
                    for try await element in self {
                        collected.append(element)
                        if collected.count == count { break }
                    }
                } catch {}
                return collected
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var result: [Element] = []
            if let first = await group.next(), let collected = first { result = collected }
            group.cancelAll()
            return result
        }
    }
}
