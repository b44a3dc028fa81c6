import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// A navigation burst: `pushes` pushes in a tight loop onto a path kept
    /// in one key, the whole path encoded (JSONEncoder) and stored on every
    /// push, as a navigation stack binding does. SceneStore takes its
    /// default configuration (saves coalesced, 30 ms) and one `flush` at
    /// the end; every other alternative writes on every push, the pattern
    /// its users pick. Timed from the first push until all is durable (as
    /// durable as each alternative gets).
    struct BurstFigures: Encodable {
        var pushes: Int
        var runs: Int
        /// Bytes of the encoded path after the last push.
        var pathBytes: Int
        /// Alternative -> median over runs of the burst's time, milliseconds.
        var totalMs: [String: Double]
        /// Alternative -> files written (SQLite: transactions) in one burst,
        /// median over runs; SceneStore's from its scene file's generation.
        var writes: [String: Int]
        /// Alternative -> total over SceneStore's.
        var overSceneStore: [String: Double]

        static func measure(pushes: Int, runs: Int, in scratch: URL) async throws -> BurstFigures {
            var totals: [String: [Double]] = [:]
            var writes: [String: [Int]] = [:]
            var pathBytes = 0
            for run in 0..<runs {
                var alternatives = commitAlternatives(sceneStore: SceneStoreAlternative(configuration: .init()))
                alternatives.shuffle()
                for index in alternatives.indices {
                    let place = scratch.appendingPathComponent("burst-r\(run)-\(index)")
                    try await alternatives[index].prepare(keys: 0, in: place)
                    let encoder = JSONEncoder()
                    var path: [Int] = []
                    path.reserveCapacity(pushes)
                    let start = monotonicNanoseconds()
                    for push in 0..<pushes {
                        path.append(push)
                        try await alternatives[index].push(try encoder.encode(path), forKey: "path")
                    }
                    try await alternatives[index].settle()
                    let elapsed = monotonicNanoseconds() - start
                    pathBytes = try encoder.encode(path).count
                    let name = alternatives[index].name
                    totals[name, default: []].append(Double(elapsed) / 1_000_000)
                    writes[name, default: []].append(alternatives[index].writes)
                    try await alternatives[index].finish()
                }
            }
            let medians = totals.mapValues(Bench.median)
            return BurstFigures(
                pushes: pushes, runs: runs, pathBytes: pathBytes, totalMs: medians,
                writes: writes.mapValues { Int(Bench.median($0.map(Double.init))) },
                overSceneStore: Bench.ratios(medians, over: medians[SceneStoreAlternative().name]))
        }

        func printTable(order: [String]) {
            emit("")
            emit("navigation burst: \(pushes) pushes onto a path in one key (\(pathBytes) bytes at the end), until durable; median of \(runs) run(s)")
            emit("".padding(toLength: 20, withPad: " ", startingAt: 0)
                 + ["total ms", "x SceneStore", "file writes"].map { $0.leftPadded(to: 14) }.joined())
            for name in order {
                guard let total = totalMs[name] else { continue }
                emit(name.padding(toLength: 20, withPad: " ", startingAt: 0)
                     + String(format: "%.1f", total).leftPadded(to: 14)
                     + (overSceneStore[name].map { String(format: "%.2fx", $0) } ?? "-").leftPadded(to: 14)
                     + String(writes[name] ?? 0).leftPadded(to: 14))
            }
            emit("  SceneStore: default configuration (saves coalesced to one per 30 ms), one flush at the end; the others write on every push")
        }
    }
}
