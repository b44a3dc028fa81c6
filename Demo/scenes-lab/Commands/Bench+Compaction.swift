import Foundation
import ScenesCLIKit

extension Bench {
    /// What compacting the scene's log costs SceneStore's commits, counted,
    /// not derived: the commits that wrote the scene whole (a new file),
    /// and what they took beyond a commit that appended.
    struct CompactionFigures: Encodable {
        var commits = 0
        /// Commits that wrote the scene whole.
        var wholeWrites = 0
        /// Their time, summed, in nanoseconds.
        private var wholeNanoseconds = 0
        /// The p50 of the commits that appended, per run.
        private var appendP50s: [Double] = []

        mutating func add(_ samples: [Int], whole: [Bool]) {
            commits += samples.count
            let appended = zip(samples, whole).filter { !$0.1 }.map(\.0)
            let compacted = zip(samples, whole).filter { $0.1 }.map(\.0)
            wholeWrites += compacted.count
            wholeNanoseconds += compacted.reduce(0, +)
            if !appended.isEmpty { appendP50s.append(Summary(nanoseconds: appended).p50Ms * 1000) }
        }

        /// The median p50 of an appending commit, in microseconds.
        var appendP50Microseconds: Double { appendP50s.isEmpty ? 0 : Bench.median(appendP50s) }

        /// A whole write's mean time, in microseconds.
        var wholeMeanMicroseconds: Double { wholeWrites == 0 ? 0 : Double(wholeNanoseconds) / Double(wholeWrites) / 1000 }

        /// What the whole writes took beyond appending, spread over every
        /// commit, in microseconds.
        var perCommitMicroseconds: Double {
            guard commits > 0 else { return 0 }
            return max(0, wholeMeanMicroseconds - appendP50Microseconds) * Double(wholeWrites) / Double(commits)
        }

        private enum CodingKeys: String, CodingKey {
            case commits, wholeWrites, appendP50Microseconds, wholeMeanMicroseconds, perCommitMicroseconds
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(commits, forKey: .commits)
            try container.encode(wholeWrites, forKey: .wholeWrites)
            try container.encode(appendP50Microseconds, forKey: .appendP50Microseconds)
            try container.encode(wholeMeanMicroseconds, forKey: .wholeMeanMicroseconds)
            try container.encode(perCommitMicroseconds, forKey: .perCommitMicroseconds)
        }

        static func printTable(_ figures: [String: CompactionFigures], sizes: [Int]) {
            emit("SceneStore's compactions (commits that wrote the scene whole), counted over every run:")
            for size in sizes {
                guard let figure = figures[String(size)] else { continue }
                emit(String(format: "  %6d keys: %d of %d commits; mean %.0f µs against %.0f µs appending; %.1f µs per commit",
                            size, figure.wholeWrites, figure.commits, figure.wholeMeanMicroseconds,
                            figure.appendP50Microseconds, figure.perCommitMicroseconds))
            }
        }
    }
}
