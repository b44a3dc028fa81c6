import Foundation
import Testing
@testable import SceneStore

/// Format 3 as the format's comment defines it (SceneFile.swift), checked
/// against bytes these tests lay out themselves (``SceneFileBytes``), not
/// only against what the writer produces.
@Suite struct SceneFileFormatTests {
    /// A deterministic generator, so a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alphabet: [Character] = Array("aZ09 _-./\"\\\n\t\r\u{0}\u{1}\u{1F}\u{7F}é日本🧭\u{FEFF}")

    private func randomString(_ rng: inout SplitMix) -> String {
        String((0..<Int.random(in: 0...12, using: &rng)).map { _ in Self.alphabet.randomElement(using: &rng) ?? "a" })
    }

    private func randomValue(_ rng: inout SplitMix) -> SceneValue {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .bool(Bool.random(using: &rng))
        case 1: return .int(Int(bitPattern: UInt(rng.next())))
        case 2:
            let special: [Double] = [.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1]
            return .double(Bool.random(using: &rng) ? (special.randomElement(using: &rng) ?? 0) : Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF))
        case 3: return .string(randomString(&rng))
        case 4: return .url(URL(string: "https://example.com/\(Int.random(in: 0...999, using: &rng))?q=a%20b#f") ?? URL(fileURLWithPath: "/"))
        default: return .data(Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        }
    }

    private func randomFile(_ rng: inout SplitMix) -> SceneFile {
        var values: [String: SceneValue] = [:]
        for _ in 0..<Int.random(in: 0...30, using: &rng) {
            values[randomString(&rng) + "k"] = randomValue(&rng)
        }
        return SceneFile(
            scene: "s", generation: rng.next() >> 1, incarnation: randomToken(),
            writer: WriterIdentity(pid: Int32.random(in: 1...Int32.max, using: &rng), token: randomToken()),
            values: values)
    }

    @Test func writtenFilesReadBackEqual() throws {
        var rng = SplitMix(state: 42)
        for round in 0..<500 {
            let file = randomFile(&rng)
            let decoded = try SceneFile.decode(file.encoded()).get()
            #expect(decoded == file, "round \(round)")
            #expect(SceneFile.peekVersion(file.encoded()) == file.version, "round \(round)")
        }
    }

    @Test func theWriterLaysOutTheFormatAsDefined() throws {
        let writer = WriterIdentity(pid: 7, token: "t")
        let file = SceneFile(
            scene: "main", generation: 5, incarnation: "i", writer: writer,
            values: ["b": .bool(true), "a": .int(-2), "c": .double(.nan), "d": .string("é"), "e": .url(URL(string: "https://x.org/a%20b")!), "f": .data(Data([0, 255]))])
        var bytes = SceneFileBytes()
        bytes.snapshot(generation: 5, incarnation: "i", pid: 7, token: "t", scene: "main", entries: [
            ("a", .int(-2)), ("b", .bool(true)), ("c", .double(.nan)), ("d", .string("é")),
            ("e", .url(URL(string: "https://x.org/a%20b")!)), ("f", .data(Data([0, 255]))),
        ])
        #expect(file.encoded() == bytes.data)
        let record = SceneFileRecord(generation: 6, writer: writer, set: [("a", .int(3))], removed: ["b"])
        bytes.record(generation: 6, pid: 7, token: "t", set: [("a", .int(3))], removed: ["b"])
        #expect(file.encoded() + record.frame() == bytes.data)
    }

    @Test func aFileOfAnotherFormatOrVersionIsRefused() {
        var bytes = SceneFileBytes()
        bytes.snapshot(generation: 1, entries: [("a", .int(1))])
        let good = bytes.data
        var newer = good
        newer[8] = 4
        #expect(SceneFile.decode(newer).failure == .newerVersion(4), "a newer version is refused, to be left as it is")
        for version: UInt8 in [0, 2] {
            var older = good
            older[8] = version
            guard case .malformed = SceneFile.decode(older).failure else {
                Issue.record("version \(version) decoded")
                continue
            }
        }
        let json = Data(#"{"format": "scenestore.scene", "version": 2}"#.utf8)
        for other in [Data(), Data("SCNSTORE".utf8), json, Data(count: 64)] {
            guard case .malformed = SceneFile.decode(other).failure else {
                Issue.record("\(other.count) bytes of another format decoded")
                continue
            }
        }
    }

    @Test func aFrameWhoseChecksumMatchesButWhosePayloadIsWrongIsMalformed() {
        let cases: [(String, (inout SceneFileBytes) -> Void)] = [
            ("invalid UTF-8 in a key", { $0.snapshot(rawEntries: [[1, 0, 0, 0, 0xFF, 1] + Array(repeating: 0, count: 8)]) }),
            ("an unknown value tag", { $0.snapshot(rawEntries: [[1, 0, 0, 0, 0x61, 9]]) }),
            ("a bool that is 2", { $0.snapshot(rawEntries: [[1, 0, 0, 0, 0x61, 0, 2]]) }),
            ("keys out of order", { $0.snapshot(generation: 1, entries: [("b", .int(1)), ("a", .int(2))]) }),
            ("a key twice", { $0.snapshot(generation: 1, entries: [("a", .int(1)), ("a", .int(2))]) }),
            ("one key spelled twice", { $0.snapshot(generation: 1, entries: [("e\u{301}", .int(1)), ("\u{E9}", .int(2))]) }),
            ("a count past the payload", { $0.snapshot(rawEntries: [], count: 1000) }),
            ("a record that skips a generation", {
                $0.snapshot(generation: 1, entries: [])
                $0.record(generation: 3, set: [("a", .int(1))], removed: [])
            }),
            ("a snapshot's kind on a record", {
                $0.snapshot(generation: 1, entries: [])
                $0.snapshot(generation: 2, entries: [])
            }),
        ]
        for (name, build) in cases {
            var bytes = SceneFileBytes()
            build(&bytes)
            guard case .malformed = SceneFile.decode(bytes.data).failure else {
                Issue.record("\(name): decoded")
                continue
            }
        }
    }

    @Test func damagedBytesNeverCrashAndNeverPassAsAnotherScene() throws {
        var rng = SplitMix(state: 1234)
        let file = randomFile(&rng)
        let original = file.encoded()
        for _ in 0..<3000 {
            var bytes = [UInt8](original)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[at] ^= UInt8.random(in: 1...255, using: &rng)
            case 1:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &rng))
            default:
                bytes.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...bytes.count, using: &rng))
            }
            if case .success(let decoded) = SceneFile.decode(Data(bytes)) {
                // Only padding after the log (a zero byte at the end) may pass.
                #expect(decoded == file)
            }
        }
    }
}

extension Result {
    /// The error, or `nil`.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
