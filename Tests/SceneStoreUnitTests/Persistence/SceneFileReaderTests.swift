import Foundation
import Testing
@testable import SceneStore

/// Reading a document over the one read before (``SceneFileReader``) must
/// give exactly what a full reading gives, for saves, for damage and for
/// files laid out in ways SceneStore never writes.
@Suite struct SceneFileReaderTests {
    private typealias SplitMix = SceneFileParserTests.SplitMix

    /// Keys that sort differently by bytes than by `String <`, and two
    /// spellings of one key (equal as Strings, different bytes).
    private static let keys = ["a", "b", "key0", "key10", "key9", "é", "e\u{301}", "日本", "🧭", "Z", "aa", "a.b", "~"]

    private func file(_ values: [String: SceneValue], generation: UInt64) -> SceneFile {
        SceneFile(scene: "s", generation: generation, incarnation: "0123456789abcdef",
                  writer: WriterIdentity(pid: 7, token: "fedcba9876543210"), values: values)
    }

    private func randomValue(_ rng: inout SplitMix) -> SceneValue? {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return nil
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int.random(in: 0..<4, using: &rng))
        case 3: return .double([Double.nan, 0.5, -0.0].randomElement(using: &rng) ?? 0)
        case 4: return .string(["", "x", "\"x\n"].randomElement(using: &rng) ?? "")
        case 5: return .url(URL(string: "https://example.com/a%20b") ?? URL(fileURLWithPath: "/"))
        default: return .data(Data([1, 2, UInt8.random(in: 0...2, using: &rng)]))
        }
    }

    /// What a reading came to, comparable: the file, or the kind of problem
    /// (the two readings may name different offsets of one damage).
    private enum Outcome: Equatable {
        case file(SceneFile)
        case malformed
        case badChecksum
        case newer(Int)

        init(_ result: Result<SceneFile, SceneFile.Problem>) {
            switch result {
            case .success(let file): self = .file(file)
            case .failure(.malformed): self = .malformed
            case .failure(.badChecksum): self = .badChecksum
            case .failure(.newerVersion(let version)): self = .newer(version)
            }
        }
    }

    /// Damage and layouts a reader may meet: a byte changed, a line
    /// repeated, two lines swapped (keys out of order), the last line cut.
    private func disturb(_ bytes: Data, _ rng: inout SplitMix) -> Data {
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let values = (lines.firstIndex { $0.contains("\"values\"") } ?? 0) + 1
        let entries = values..<max(values, lines.count - 3)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0 where !bytes.isEmpty:
            var changed = bytes
            let offset = Int.random(in: 0..<changed.count, using: &rng)
            changed[offset] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            return changed
        case 1 where !entries.isEmpty:
            let line = Int.random(in: entries, using: &rng)
            var repeated = lines[line]
            if !repeated.hasSuffix(",") { repeated += "," }
            lines.insert(repeated, at: line)
        case 2 where entries.count >= 2:
            let first = Int.random(in: entries.lowerBound..<(entries.upperBound - 1), using: &rng)
            let (a, b) = (lines[first].trimmingCharacters(in: [","]), lines[first + 1].trimmingCharacters(in: [","]))
            let lastHasComma = lines[first + 1].hasSuffix(",")
            lines[first] = b + ","
            lines[first + 1] = a + (lastHasComma ? "," : "")
        default:
            return bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng))
        }
        return Data(lines.joined(separator: "\n").utf8)
    }

    @Test func readingOverThePreviousDocumentGivesWhatAFullReadingGives() {
        var rng = SplitMix(state: 11)
        var reader = SceneFileReader()
        var values: [String: SceneValue] = [:]
        var overBaseline = 0
        for round in 0..<3000 {
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let key = Self.keys.randomElement(using: &rng) ?? "a"
                values[key] = randomValue(&rng)
            }
            var bytes = file(values, generation: UInt64(round + 1)).encoded()
            if round % 4 == 3 { bytes = disturb(bytes, &rng) }
            let read = reader.decode(bytes, expectedKeys: values.count, keep: true)
            #expect(Outcome(read) == Outcome(SceneFile.decode(bytes)), "round \(round)\n\(String(decoding: bytes, as: UTF8.self))")
            if case .success = read, reader.parsedOverBaseline != nil { overBaseline += 1 }
        }
        // Most saves are read by difference (the others followed damage,
        // or a file out of order).
        #expect(overBaseline > 1500)
    }

    @Test func aSaveThatChangedOneValueOfManyParsesThatValueOnly() throws {
        var reader = SceneFileReader()
        var values = Dictionary(uniqueKeysWithValues: (0..<100).map { ("key\($0)", SceneValue.int($0)) })
        _ = try reader.decode(file(values, generation: 1).encoded(), expectedKeys: 0, keep: true).get()
        #expect(reader.parsedOverBaseline == nil)

        values["key42"] = .string("changed")
        values["key7"] = nil
        values["new"] = .bool(true)
        let next = file(values, generation: 2)
        #expect(try reader.decode(next.encoded(), expectedKeys: 100, keep: true).get() == next)
        #expect(reader.parsedOverBaseline == 2)

        // Not kept (opening reads): the next reading is a full one.
        _ = try reader.decode(next.encoded(), expectedKeys: 100, keep: false).get()
        #expect(reader.parsedOverBaseline == 0)
        var fresh = SceneFileReader()
        _ = try fresh.decode(next.encoded(), expectedKeys: 100, keep: false).get()
        _ = try fresh.decode(next.encoded(), expectedKeys: 100, keep: false).get()
        #expect(fresh.parsedOverBaseline == nil)
    }

    @Test func twoSpellingsOfOneKeyAreDamageEitherWay() {
        var reader = SceneFileReader()
        _ = reader.decode(file(["e\u{301}": .int(1), "z": .int(2)], generation: 1).encoded(), expectedKeys: 0, keep: true)
        // "\u{E9}" sorts after "e\u{301}" by bytes: a file holding both
        // is in checksum order, and read over the baseline until the end.
        let both = """
            {"format": "scenestore.scene", "version": 1, "scene": "s", "generation": 2,
             "incarnation": "0123456789abcdef", "writer": {"pid": 7, "token": "fedcba9876543210"},
             "checksum": "fnv1a64:0000000000000000",
             "values": {"e\u{301}": {"type": "int", "value": 1}, "z": {"type": "int", "value": 2}, "\u{E9}": {"type": "int", "value": 3}}}
            """
        let read = reader.decode(Data(both.utf8), expectedKeys: 2, keep: true)
        #expect(Outcome(read) == .malformed)
        #expect(Outcome(read) == Outcome(SceneFile.decode(Data(both.utf8))))
    }
}
