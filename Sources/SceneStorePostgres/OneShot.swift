#if Postgres
import NIOConcurrencyHelpers

/// A value set once, awaited by any number of tasks.
final class OneShot<Value: Sendable>: Sendable {
    private let state = NIOLockedValueBox<(value: Value?, waiters: [CheckedContinuation<Value, Never>])>((nil, []))

    /// Sets the value unless it was set.
    /// - Returns: whether this call set it.
    @discardableResult
    func fulfil(_ value: Value) -> Bool {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Value, Never>]? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// The value, once set.
    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let value = state.withLockedValue { state -> Value? in
                    if state.value == nil { state.waiters.append(continuation) }
                    return state.value
                }
                if let value { continuation.resume(returning: value) }
            }
        }
    }
}
#endif
