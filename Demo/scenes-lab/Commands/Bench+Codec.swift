import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// CPU cost of the scene file format alone, no disk: reading a file
    /// another process saved (parse, checksum) and writing one from
    /// scratch, per scene size. What a reload and a first save cost before
    /// any system call.
    struct Codec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scene file decode and encode, in memory, at several scene sizes.")

        @Option(help: "Repetitions per size (the median is reported).") var repetitions = 200
        @Flag(help: "A smoke test: few repetitions.") var quick = false

        struct Row: Encodable {
            var keys: Int
            var bytes: Int
            var decodeMicroseconds: Double
            var encodeMicroseconds: Double
        }

        func run() async throws {
            var rows: [Row] = []
            for keys in [10, 100, 1000, 10_000] {
                var values: [String: SceneValue] = [:]
                for key in 0..<keys { values["key\(key)"] = .string("value number \(key)") }
                let file = SceneFile(
                    scene: "bench", generation: 7, incarnation: "0123456789abcdef",
                    writer: WriterIdentity(pid: 1, token: "fedcba9876543210"), values: values)
                let bytes = file.encoded()
                let repetitions = quick ? 5 : max(self.repetitions * 100 / max(keys, 100), 5)
                var decodes: [Int] = []
                var encodes: [Int] = []
                for _ in 0..<repetitions {
                    let start = monotonicNanoseconds()
                    guard case .success = SceneFile.decode(bytes) else { throw failure("the sample file does not decode") }
                    let decoded = monotonicNanoseconds()
                    _ = file.encoded()
                    encodes.append(monotonicNanoseconds() - decoded)
                    decodes.append(decoded - start)
                }
                rows.append(Row(
                    keys: keys, bytes: bytes.count,
                    decodeMicroseconds: Bench.median(decodes.map(Double.init)) / 1000,
                    encodeMicroseconds: Bench.median(encodes.map(Double.init)) / 1000))
            }
            emit("scene file codec, in memory (median):")
            emit("      keys      bytes   decode µs   encode µs")
            for row in rows {
                emit(String(format: "%10d %10d %11.1f %11.1f", row.keys, row.bytes, row.decodeMicroseconds, row.encodeMicroseconds))
            }
            emit(try jsonLine(rows))
        }
    }
}
