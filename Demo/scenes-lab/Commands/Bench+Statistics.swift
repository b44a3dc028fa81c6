extension Bench {
    /// Percentiles of a set of latencies, in milliseconds.
    struct Summary: Encodable {
        var count: Int
        var p50Ms: Double
        var p99Ms: Double
        var meanMs: Double
        var minMs: Double
        var maxMs: Double

        /// - Parameter nanoseconds: at least one latency.
        init(nanoseconds: [Int]) {
            let sorted = nanoseconds.sorted()
            func ms(_ value: Int) -> Double { Double(value) / 1_000_000 }
            /// Nearest rank: the smallest value with at least `p` of the values at or below it.
            func percentile(_ p: Double) -> Double {
                let rank = Int((p * Double(sorted.count)).rounded(.up))
                return ms(sorted[min(max(rank, 1), sorted.count) - 1])
            }
            count = sorted.count
            p50Ms = percentile(0.50)
            p99Ms = percentile(0.99)
            meanMs = ms(sorted.reduce(0, +)) / Double(max(sorted.count, 1))
            minMs = ms(sorted.first ?? 0)
            maxMs = ms(sorted.last ?? 0)
        }

        /// One row of the table.
        func row(_ label: String) -> String {
            let cells = [p50Ms, p99Ms, meanMs, minMs, maxMs].map { Self.cell($0) }
            return label.padding(toLength: 16, withPad: " ", startingAt: 0) + cells.joined()
        }

        static let header = "".padding(toLength: 16, withPad: " ", startingAt: 0)
            + ["p50", "p99", "mean", "min", "max"].map { $0.leftPadded(to: 11) }.joined()

        static func cell(_ milliseconds: Double) -> String {
            (String(format: "%.3f", milliseconds) + " ms").leftPadded(to: 11)
        }
    }
}

extension Bench {
    /// The middle value (the upper one of an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Each value over `base`'s, where `base` has a positive one.
    static func ratios(_ values: [String: Double], over base: Double?) -> [String: Double] {
        guard let base, base > 0 else { return [:] }
        return values.mapValues { $0 / base }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
