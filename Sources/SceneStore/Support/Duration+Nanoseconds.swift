import Dispatch

extension Duration {
    /// Whole nanoseconds, clamped to what an `Int` holds.
    package var nanoseconds: Int {
        let (seconds, attoseconds) = components
        let limit = Int64(Int.max / 1_000_000_000 - 1)
        return Int(max(min(seconds, limit), -limit)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
