import Foundation
import Testing
@testable import SceneStore

/// A save over the file a store wrote last re-encodes only the keys it
/// changed; the bytes must be exactly those of a fresh encoding.
@Suite struct SceneFileEncoderTests {
    private typealias SplitMix = SceneFileParserTests.SplitMix

    /// Keys that sort differently by bytes than by `String <`, equal under
    /// canonical equivalence, empty-ish, non-ASCII.
    private static let keys = [
        "a", "b", "key0", "key10", "key9", "é", "e\u{301}", "日本", "🧭", "Z", "a\u{0}b", "aa", "a.b", "-", "~",
    ]

    private func file(_ values: [String: SceneValue], generation: UInt64, incarnation: String = "0123456789abcdef") -> SceneFile {
        SceneFile(scene: "s", generation: generation, incarnation: incarnation,
                  writer: WriterIdentity(pid: 7, token: "fedcba9876543210"), values: values)
    }

    private func randomValue(_ rng: inout SplitMix) -> SceneValue? {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0, 1: return nil
        case 2: return .bool(Bool.random(using: &rng))
        case 3: return .int(Int(bitPattern: UInt(rng.next())))
        case 4: return .double([Double.nan, 0.5, -0.0, .infinity].randomElement(using: &rng) ?? 0)
        case 5: return .string(String(repeating: "\"x\n", count: Int.random(in: 0...3, using: &rng)))
        case 6: return .url(URL(string: "https://example.com/a%20b?q=1#f") ?? URL(fileURLWithPath: "/"))
        default: return .data(Data((0..<Int.random(in: 0...9, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        }
    }

    @Test func savingOverTheLastFileGivesTheBytesOfAFreshEncoding() throws {
        var rng = SplitMix(state: 7)
        var encoder = SceneFileEncoder()
        var base: SceneFile?
        var values: [String: SceneValue] = [:]
        for round in 0..<2000 {
            var edited: [String: SceneValue?] = [:]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let key = Self.keys.randomElement(using: &rng) ?? "a"
                let value = randomValue(&rng)
                edited[key] = .some(value)
                values[key] = value
            }
            let next = file(values, generation: UInt64(round + 1))
            let bytes = encoder.encode(next, over: base, edited: edited.keys)
            #expect(bytes == next.encoded(), "round \(round), edited \(edited.keys.map(\.debugDescription))")
            #expect(try SceneFile.decode(bytes).get() == next, "round \(round)")
            encoder.written(next.version)
            base = next
        }
    }

    @Test func anEncodingNeverConfirmedWrittenIsNotReused() {
        var encoder = SceneFileEncoder()
        let first = file(["a": .int(1), "b": .int(2)], generation: 1)
        encoder.written(first.version)
        _ = encoder.encode(first, over: nil, edited: [])
        encoder.written(first.version)

        // This process's save of generation 2 fails (not confirmed); another
        // process writes its own generation 2, and the next save goes over it.
        let mine = file(["a": .int(10), "b": .int(2)], generation: 2)
        _ = encoder.encode(mine, over: first, edited: ["a"])
        let theirs = file(["a": .int(1), "b": .int(20), "c": .int(3)], generation: 2)
        let next = file(["a": .int(10), "b": .int(20), "c": .int(3)], generation: 3)
        #expect(encoder.encode(next, over: theirs, edited: ["a"]) == next.encoded())
    }

    @Test func keysAreOrderedByTheirUTF8Bytes() {
        var rng = SplitMix(state: 3)
        let alphabet = Array("aZ0_é日🧭\u{0}\u{7F}\u{301}e")
        for _ in 0..<5000 {
            let a = String((0..<Int.random(in: 0...5, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? "a" })
            let b = String((0..<Int.random(in: 0...5, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? "a" })
            #expect(utf8Precedes(a, b) == a.utf8.lexicographicallyPrecedes(b.utf8), "\(a.debugDescription) \(b.debugDescription)")
        }
    }
}
