import Observation

/// Waits until what an `@Observable` model shows satisfies `predicate`:
/// `value` is read now, then again after each change of a property it
/// reads, until one reading matches or `timeout` passes. The timeout only
/// bounds a test that would otherwise hang; it never decides success.
///
/// ```swift
/// model.selectedTab = 2
/// #expect(await observedValue({ model.line }, until: { $0 == "2 dune" }) != nil)
/// ```
///
/// - Returns: the first matching reading, or `nil` after `timeout`.
@MainActor
public func observedValue<Value: Sendable>(
    _ value: @escaping @MainActor () -> Value,
    within timeout: Duration = .seconds(120),
    until predicate: @escaping @Sendable (Value) -> Bool
) async -> Value? {
    let now = value()
    if predicate(now) { return now }
    let (readings, continuation) = AsyncStream.makeStream(of: Value.self)
    track(value, into: continuation)
    return await readings.first(within: timeout, where: predicate)
}

/// Reads `value` under observation; after a change, hands the new reading
/// to `continuation` and observes again, until the stream is dropped.
@MainActor
private func track<Value: Sendable>(_ value: @escaping @MainActor () -> Value, into continuation: AsyncStream<Value>.Continuation) {
    withObservationTracking {
        _ = value()
    } onChange: {
        Task { @MainActor in
            if case .terminated = continuation.yield(value()) { return }
            track(value, into: continuation)
        }
    }
}
