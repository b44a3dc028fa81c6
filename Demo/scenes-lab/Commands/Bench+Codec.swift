import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// CPU cost of the scene file format alone, no disk, per scene size:
    /// reading a file from scratch (parse, checksum) and writing one; a
    /// save that changed one value (its record), and the reading of the
    /// version it makes, whole. What an opening, a first
    /// save, a save and a reload cost before any system call.
    struct Codec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scene file decode and encode, in memory, at several scene sizes.")

        @Option(help: "Repetitions per size (the median is reported).") var repetitions = 200
        @Flag(help: "Every value an int, key N's N × 7919 (default: every value the string \"value number N\").")
        var ints = false
        @Flag(help: "A smoke test: few repetitions.") var quick = false

        struct Row: Encodable {
            var keys: Int
            var bytes: Int
            var decodeMicroseconds: Double
            var encodeMicroseconds: Double
            /// One value changed: its record.
            var saveMicroseconds: Double
            /// The version that save makes, read whole.
            var reloadMicroseconds: Double
        }

        func run() async throws {
            var rows: [Row] = []
            for keys in [10, 100, 1000, 10_000] {
                var values: [String: SceneValue] = [:]
                for key in 0..<keys { values["key\(key)"] = ints ? .int(key * 7919) : .string("value number \(key)") }
                let file = SceneFile(
                    scene: "bench", generation: 7, incarnation: "0123456789abcdef",
                    writer: WriterIdentity(pid: 1, token: "fedcba9876543210"), values: values)
                let bytes = file.encoded()
                let repetitions = quick ? 5 : max(self.repetitions * 100 / max(keys, 100), 5)
                var decodes: [Int] = []
                var encodes: [Int] = []
                var saves: [Int] = []
                var reloads: [Int] = []
                var encoder = SceneFileEncoder()
                var current = file
                _ = encoder.encode(current)
                encoder.written(current.version)
                for repetition in 0..<repetitions {
                    let start = monotonicNanoseconds()
                    guard case .success = SceneFile.decode(bytes) else { throw failure("the sample file does not decode") }
                    let decoded = monotonicNanoseconds()
                    _ = file.encoded()
                    encodes.append(monotonicNanoseconds() - decoded)
                    decodes.append(decoded - start)

                    var next = current
                    next.generation += 1
                    let key = "key\((repetition * 7919) % keys)"
                    next.values[key] = ints ? .int(repetition) : .string("value \(repetition)")
                    let written = next.encoded()
                    let saving = monotonicNanoseconds()
                    _ = encoder.record(next, over: current, edited: [key])
                    let reloading = monotonicNanoseconds()
                    let reread = SceneFile.decode(written)
                    reloads.append(monotonicNanoseconds() - reloading)
                    saves.append(reloading - saving)
                    guard case .success(next) = reread else { throw failure("a save does not read back as itself") }
                    encoder.written(next.version)
                    current = next
                }
                rows.append(Row(
                    keys: keys, bytes: bytes.count,
                    decodeMicroseconds: Bench.median(decodes.map(Double.init)) / 1000,
                    encodeMicroseconds: Bench.median(encodes.map(Double.init)) / 1000,
                    saveMicroseconds: Bench.median(saves.map(Double.init)) / 1000,
                    reloadMicroseconds: Bench.median(reloads.map(Double.init)) / 1000))
            }
            emit("scene file codec, in memory (median):")
            emit("      keys      bytes   decode µs   encode µs     save µs   reload µs")
            for row in rows {
                emit(String(format: "%10d %10d %11.1f %11.1f %11.1f %11.1f", row.keys, row.bytes, row.decodeMicroseconds,
                            row.encodeMicroseconds, row.saveMicroseconds, row.reloadMicroseconds))
            }
            emit(try jsonLine(rows))
        }
    }
}
