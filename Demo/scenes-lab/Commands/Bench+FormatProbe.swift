import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// What reading scene files through Foundation instead of the
    /// hand-written parser would cost ("format 3": a header line, the values
    /// as JSON lines, one record per line). In memory, no disk:
    ///
    /// 0. whether each reader gives back a scene's doubles bit for bit (a
    ///    reader that does not fails the checksum: the scene reads as damaged);
    /// 1. a whole scene: `SceneFile.decode` of a format 2 file against
    ///    (a) `JSONSerialization` of the same bytes, (b) format 3 read one
    ///    `JSONSerialization` per line (one line per key, or the values on
    ///    one line) and (c) `JSONDecoder`; each reader converts the values
    ///    to their kinds (*parse*), then keeps them as the store does, in
    ///    key order, and verifies their checksum (*whole*, the figure to
    ///    compare with `decode`). The readers take turns, in a rotating
    ///    order, so a busy machine slows them alike;
    /// 2. one appended record, what another process reads on every save it
    ///    sees: `SceneFileReader.records(in:after:)` on the tail a reader
    ///    reads against `JSONSerialization` of the record's line;
    /// 3. the peak memory (VmHWM, reset before reading) of reading a whole
    ///    scene, each reader in a fresh process (`bench format-probe-child`).
    struct FormatProbe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "format-probe",
            abstract: "The hand-written scene file parser against Foundation (JSONSerialization, JSON lines, JSONDecoder).")

        @Option(parsing: .upToNextOption, help: "Scene sizes of the whole-scene timings.") var keys = [100, 1000, 10_000]
        @Option(parsing: .upToNextOption, help: "Scene sizes of the memory figures.") var memoryKeys = [10_000, 100_000]
        @Option(help: "Repetitions of a 100-key scene (fewer for larger ones, at least 11); the median is reported.")
        var repetitions = 200
        @Option(help: "Repetitions of a record reading.") var recordRepetitions = 20_000
        @Option(help: "Fresh processes per memory figure; the median is reported.") var runs = 3
        @Flag(help: "Every value a string, as bench codec and bench memory write them (default: the six kinds in turn).")
        var strings = false
        @Flag(help: "A smoke test: few repetitions, small scenes.") var quick = false
        @Flag(help: "Print one JSON line instead of the tables.") var json = false

        /// The readers of a whole scene.
        enum Reader: String, CaseIterable, Codable, ExpressibleByArgument {
            case current, serialization, keyLines = "key-lines", valuesLine = "values-line", decoder

            var label: String {
                switch self {
                case .current: "SceneFile.decode, format 2"
                case .serialization: "(a) JSONSerialization, format 2"
                case .keyLines: "(b) JSON lines, a line per key"
                case .valuesLine: "(b) JSON lines, values on one"
                case .decoder: "(c) JSONDecoder, format 2"
                }
            }

            /// The sample's bytes this reader reads.
            func bytes(of file: SceneFile) -> Data {
                switch self {
                case .current, .serialization, .decoder: file.encoded(.log)
                case .keyLines: encodeLines(file, .keyLines)
                case .valuesLine: encodeLines(file, .valuesLine)
                }
            }

            /// Reads `data` whole; `parsed` is called once the values are converted, before they are kept.
            func read(_ data: Data, parsed: () -> Void = {}) throws -> SceneValues {
                if self == .current {
                    guard case .success(let file) = SceneFile.decode(data) else { throw Unreadable("the sample does not decode") }
                    parsed()
                    return file.values
                }
                let result = try parse(data)
                parsed()
                return try keep(result)
            }

            /// The values of `data`, converted, not kept (the checksum not verified).
            func parse(_ data: Data) throws -> Parsed {
                switch self {
                case .current:
                    guard case .success(let file) = SceneFile.decode(data) else { throw Unreadable("the sample does not decode") }
                    return Parsed(generation: file.generation, checksum: "", pairs: file.values.map { ($0.key, $0.value) })
                case .serialization: return try parseWhole(data)
                case .keyLines: return try parseLines(data, .keyLines)
                case .valuesLine: return try parseLines(data, .valuesLine)
                case .decoder: return try parseDecodable(data)
                }
            }
        }

        struct SceneRow: Codable {
            var keys: Int
            var reader: Reader
            var bytes: Int
            var repetitions: Int
            /// Medians, µs: values converted, and kept with their checksum verified.
            var parseMicroseconds: Double
            var wholeMicroseconds: Double
            /// `wholeMicroseconds` over the current parser's, in the same run.
            var ratio: Double
        }

        struct RecordRow: Codable {
            var keys: Int
            var currentBytes: Int
            var lineBytes: Int
            var repetitions: Int
            var currentMicroseconds: Double
            var serializationMicroseconds: Double
            var ratio: Double
        }

        struct MemoryRow: Codable {
            var keys: Int
            var reader: Reader
            var bytes: Int
            /// Medians over fresh processes, bytes over VmRSS before the file was read.
            var peak: Double
            var kept: Double
        }

        /// How many of a scene's doubles a reader gives back other than
        /// written (not bit for bit): the checksum then fails, and the
        /// scene is taken for damaged.
        struct DoublesRow: Codable {
            var reader: Reader
            var doubles: Int
            var misread: Int
            var error: String?
        }

        struct Doubles: Codable {
            var rows: [DoublesRow]
            /// Misread by `JSONSerialization` and `as? Double`, without the
            /// readers' workaround for NSDecimalNumber.
            var misreadBridged: Int
        }

        struct Figures: Codable {
            var doubles: Doubles
            var scenes: [SceneRow]
            var records: [RecordRow]
            var memory: [MemoryRow]
        }

        func run() async throws {
            let doubles = Self.checkDoubles()
            let scenes = try measureScenes(sizes: quick ? [100, 1000] : keys)
            let records = try [1, 10].map { try measureRecord(keys: $0) }
            let memory = try measureMemory(sizes: quick ? [1000] : memoryKeys)
            let figures = Figures(doubles: doubles, scenes: scenes, records: records, memory: memory)
            if json { emit(try jsonLine(figures)) } else { printTables(figures) }
        }

        // MARK: Doubles

        /// Each reader on a scene of 20 000 doubles: n / 7 and pseudo-random
        /// bit patterns, written as the library writes them (Swift's
        /// shortest round-trip spelling).
        private static func checkDoubles() -> Doubles {
            var values: [String: SceneValue] = [:]
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for index in 0..<10_000 {
                values["seventh \(index)"] = .double(Double(index) / 7)
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let random = Double(bitPattern: state)
                values["random \(index)"] = .double(random.isFinite ? random : Double(index))
            }
            let file = SceneFile(
                scene: "doubles", generation: 1, incarnation: "0123456789abcdef",
                writer: WriterIdentity(pid: 1, token: "fedcba9876543210"), values: values)
            let rows = Reader.allCases.map { reader in
                do {
                    let pairs = try reader.parse(reader.bytes(of: file)).pairs
                    let misread = pairs.count { file.values[$0.0] != $0.1 } + (values.count - pairs.count)
                    return DoublesRow(reader: reader, doubles: values.count, misread: misread)
                } catch {
                    return DoublesRow(reader: reader, doubles: values.count, misread: values.count, error: "\(error)")
                }
            }
            let top = try? JSONSerialization.jsonObject(with: file.encoded(.log)) as? [String: Any]
            let entries = top?["values"] as? [String: [String: Any]] ?? [:]
            let bridged = values.count { key, value in
                entries[key]?["value"].flatMap { $0 as? Double }.map(SceneValue.double) != value
            }
            return Doubles(rows: rows, misreadBridged: bridged)
        }

        // MARK: Whole scenes

        private func measureScenes(sizes: [Int]) throws -> [SceneRow] {
            var rows: [SceneRow] = []
            for keys in sizes {
                let file = Self.sample(keys: keys, strings: strings)
                let readers = Reader.allCases
                let inputs = readers.map { $0.bytes(of: file) }
                for (reader, data) in zip(readers, inputs) {
                    let values: SceneValues
                    do { values = try reader.read(data) } catch { throw failure("\(reader.rawValue): \(error)") }
                    guard values == file.values else { throw failure("\(reader.rawValue) does not read the sample's values") }
                }
                let repetitions = quick ? 5 : max(self.repetitions * 100 / max(keys, 100), 11)
                var parses = Array(repeating: [Double](), count: readers.count)
                var wholes = parses
                for repetition in 0..<repetitions {
                    for turn in 0..<readers.count {
                        let index = (turn + repetition) % readers.count
                        let start = monotonicNanoseconds()
                        var parsed = 0
                        let values = try readers[index].read(inputs[index]) { parsed = monotonicNanoseconds() }
                        let end = monotonicNanoseconds()
                        withExtendedLifetime(values) {}
                        parses[index].append(Double(parsed - start) / 1000)
                        wholes[index].append(Double(end - start) / 1000)
                    }
                }
                let current = Bench.median(wholes[0])
                for (index, reader) in readers.enumerated() {
                    rows.append(SceneRow(
                        keys: keys, reader: reader, bytes: inputs[index].count, repetitions: repetitions,
                        parseMicroseconds: Bench.median(parses[index]), wholeMicroseconds: Bench.median(wholes[index]),
                        ratio: Bench.median(wholes[index]) / current))
                }
            }
            return rows
        }

        // MARK: One record

        /// A record of `keys` changed keys appended to a 1000-key scene:
        /// the tail another process reads after its last position (the
        /// record, the log's end, the padding to the block's end), against
        /// the record's line alone.
        private func measureRecord(keys: Int) throws -> RecordRow {
            let base = Self.sample(keys: 1000, strings: strings)
            var encoder = SceneFileEncoder()
            let document = encoder.encode(base)
            encoder.written(base.version)
            guard case .success(let decoded) = SceneFile.decoded(document, expectedKeys: 0),
                  let position = decoded.position(in: document)
            else { throw failure("the sample has no log") }
            var next = base
            next.generation += 1
            let edited = (0..<keys).map { "key\($0)" }
            for index in 0..<keys { next.values["key\(index)"] = Self.value(index, variant: 1, strings: strings) }
            let line = encoder.record(next, over: base, edited: edited).line
            let append = LogAppend(record: line, first: position.first, end: position.offset, size: document.count)
            var file = Array(document)
            file.replaceSubrange(append.offset..<min(file.count, append.offset + append.bytes.count), with: append.bytes)
            let tail = Data(file[position.offset..<append.size])
            let jsonLine = Data(line + [0x0A])

            func current() throws -> Record {
                guard let (records, _) = SceneFileReader.records(in: tail, after: position), let record = records.first else {
                    throw failure("the tail does not read")
                }
                return Record(generation: record.generation, set: record.set.map(\.0), values: record.set.map(\.1), removed: record.removed)
            }
            func sortedPairs(_ record: Record) -> [String] { zip(record.set, record.values).map { "\($0) \($1)" }.sorted() }
            let expected = try current()
            let read = try Self.parseRecord(jsonLine, after: base.generation)
            guard expected.generation == next.generation, expected.set.count == keys, read.generation == expected.generation,
                  sortedPairs(read) == sortedPairs(expected), read.removed == expected.removed
            else { throw failure("the readers do not read the same record") }

            let repetitions = quick ? 100 : recordRepetitions
            var currents: [Double] = []
            var serializations: [Double] = []
            for repetition in 0..<repetitions {
                for turn in 0..<2 {
                    let start = monotonicNanoseconds()
                    if (turn + repetition) % 2 == 0 {
                        withExtendedLifetime(SceneFileReader.records(in: tail, after: position)) {}
                        currents.append(Double(monotonicNanoseconds() - start) / 1000)
                    } else {
                        withExtendedLifetime(try Self.parseRecord(jsonLine, after: base.generation)) {}
                        serializations.append(Double(monotonicNanoseconds() - start) / 1000)
                    }
                }
            }
            return RecordRow(
                keys: keys, currentBytes: tail.count, lineBytes: jsonLine.count, repetitions: repetitions,
                currentMicroseconds: Bench.median(currents), serializationMicroseconds: Bench.median(serializations),
                ratio: Bench.median(serializations) / Bench.median(currents))
        }

        // MARK: Memory

        private func measureMemory(sizes: [Int]) throws -> [MemoryRow] {
            let scratch = try makeTemporaryDirectory("format-probe")
            defer { try? FileManager.default.removeItem(at: scratch) }
            var rows: [MemoryRow] = []
            for keys in sizes {
                let file = Self.sample(keys: keys, strings: strings)
                var paths: [Reader: String] = [:]
                var sizes: [Reader: Int] = [:]
                for reader in Reader.allCases {
                    let data = reader.bytes(of: file)
                    let path = scratch.appendingPathComponent("\(keys)-\(reader.rawValue)").path
                    try data.write(to: URL(fileURLWithPath: path))
                    paths[reader] = path
                    sizes[reader] = data.count
                }
                var peaks: [Reader: [Double]] = [:]
                var kept: [Reader: [Double]] = [:]
                for run in 0..<(quick ? 1 : runs) {
                    for turn in 0..<Reader.allCases.count {
                        let reader = Reader.allCases[(turn + run) % Reader.allCases.count]
                        let (_, output) = try timedRun(
                            labExecutable, ["bench", "format-probe-child", "--reader", reader.rawValue, "--file", paths[reader] ?? ""])
                        let child = try JSONDecoder().decode(FormatProbeChild.Report.self, from: Data(output.utf8))
                        guard child.keys == keys else { throw failure("the child read \(child.keys) keys, not \(keys)") }
                        peaks[reader, default: []].append(Double(child.after.hwm - child.before.rss))
                        kept[reader, default: []].append(Double(child.after.rss - child.before.rss))
                    }
                }
                for reader in Reader.allCases {
                    rows.append(MemoryRow(
                        keys: keys, reader: reader, bytes: sizes[reader] ?? 0,
                        peak: Bench.median(peaks[reader] ?? []), kept: Bench.median(kept[reader] ?? [])))
                }
            }
            return rows
        }

        // MARK: Tables

        private func printTables(_ figures: Figures) {
            emit("0. doubles read back bit for bit (a scene of n/7 and random doubles, as the library writes them)")
            for row in figures.doubles.rows {
                emit("  " + row.reader.label.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + " \(row.misread) of \(row.doubles) misread" + (row.error.map { " (\($0))" } ?? ""))
            }
            emit("  JSONSerialization read as `as? Double`, without the NSDecimalNumber workaround: \(figures.doubles.misreadBridged) misread")
            emit("")
            emit("1. a whole scene, in memory: median µs (over SceneFile.decode in the same run)")
            emit("  keys  reader                                 bytes        parse        whole   ratio  reps")
            for row in figures.scenes {
                emit(String(format: "%6d  ", row.keys) + row.reader.label.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: " %10d %12.1f %12.1f %6.2fx %5d", row.bytes, row.parseMicroseconds, row.wholeMicroseconds,
                             row.ratio, row.repetitions))
            }
            emit("")
            emit("2. one appended record: median µs, SceneFileReader.records(in:after:) on the tail against JSONSerialization of its line")
            emit("  keys  tail bytes  line bytes      current   JSONSerialization   ratio   reps")
            for row in figures.records {
                emit(String(format: "%6d %11d %11d %12.2f %19.2f %6.2fx %6d", row.keys, row.currentBytes, row.lineBytes,
                            row.currentMicroseconds, row.serializationMicroseconds, row.ratio, row.repetitions))
            }
            emit("")
            emit("3. reading a whole scene, each in a fresh process: peak (VmHWM) and kept (VmRSS) over VmRSS before the read, median of \(quick ? 1 : runs)")
            emit("  keys  reader                                 bytes      peak MB   x file  x current      kept MB")
            for row in figures.memory {
                let current = figures.memory.first { $0.keys == row.keys && $0.reader == .current }?.peak ?? 0
                emit(String(format: "%6d  ", row.keys) + row.reader.label.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: " %10d %12.2f %7.2fx %9.2fx %12.2f", row.bytes, row.peak / 1e6, row.peak / Double(max(row.bytes, 1)),
                             row.peak / max(current, 1), row.kept / 1e6))
            }
        }
    }
}
