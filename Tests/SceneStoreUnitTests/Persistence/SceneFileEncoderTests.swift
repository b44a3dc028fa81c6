import Foundation
import Testing
@testable import SceneStore

/// The order the encoder writes keys in, and the checksum covers.
@Suite struct SceneFileEncoderTests {
    private typealias SplitMix = SceneFileParserTests.SplitMix

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
