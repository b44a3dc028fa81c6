import Foundation
import Testing
@testable import SceneStore

/// The order the encoder writes keys in, and the checksum covers.
@Suite struct SceneFileEncoderTests {
    private typealias SplitMix = SceneFileFormatTests.SplitMix

    /// The bound a log may grow to is the same whether the encoder wrote
    /// the scene whole last or measures it afresh.
    @Test func aWholeFileIsMeasuredAsTheSceneItHolds() {
        let values = Dictionary(uniqueKeysWithValues: (0..<50).map { ("key \($0)", SceneValue.string("value \($0)")) })
        let file = SceneFile(scene: "s", generation: 3, incarnation: "0123456789abcdef",
                             writer: WriterIdentity(pid: 7, token: "fedcba9876543210"), values: values)
        let record = SceneFileRecord(generation: 4, writer: file.writer, set: [("key 1", .int(1))], removed: [])
        var written = SceneFileEncoder()
        _ = written.encode(file)
        written.written(file.version)
        var fresh = SceneFileEncoder()
        #expect(written.frame(of: record, over: file).sizeLimit == fresh.frame(of: record, over: file).sizeLimit)
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
