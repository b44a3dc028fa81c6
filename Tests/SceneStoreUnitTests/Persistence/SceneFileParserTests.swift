import Foundation
import Testing
@testable import SceneStore

@Suite struct SceneFileParserTests {
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

    @Test func fieldsInAnyOrderWithAnySpacingAndUnknownFieldsAreRead() throws {
        // Values that survive JSONSerialization's own rewriting unchanged.
        let file = SceneFile(
            scene: "s", generation: 9, incarnation: "abc", writer: WriterIdentity(pid: 3, token: "t"),
            values: ["a": .int(-5), "b": .string("x y é"), "c": .bool(true), "d": .double(0.5), "e": .data(Data([1, 2]))])
        var object = try #require(try JSONSerialization.jsonObject(with: file.encoded()) as? [String: Any])
        object["future"] = [1, ["nested": NSNull()], "x"] as [Any]
        let reordered = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted])
        #expect(try SceneFile.decode(reordered).get() == file)
    }

    @Test func escapesAreDecoded() throws {
        let values: [String: SceneValue] = ["k": .string("é🧭/\"\\\u{8}\u{C}\n\r\t")]
        let json = """
            {"format":"scenestore.scene","version":1,"scene":"s","generation":1,"incarnation":"i",
             "writer":{"pid":1,"token":"t"},"checksum":"\(Checksum.of(values))",
             "values":{"\\u006b":{"value":"\\u00e9\\ud83e\\udded\\/\\"\\\\\\b\\f\\n\\r\\t","type":"string"}}}
            """
        #expect(try SceneFile.decode(Data(json.utf8)).get().values.dictionary == values)
    }

    @Test(arguments: [
        "", "{", "{}", "[]", "null", "{\"format\":\"scenestore.scene\"", "{\"a\":1}}",
        "{\"values\":{\"k\":{\"type\":\"int\",\"value\":\"5\"}}}",
        "{\"values\":{\"k\":{\"type\":\"float\",\"value\":5}}}",
        "{\"values\":{\"k\":{\"type\":\"string\",\"value\":\"\\ud800\"}}}",
        "{\"values\":{\"k\":{\"type\":\"data\",\"value\":\"%%%\"}}}",
    ])
    func malformedInputIsRejected(text: String) {
        guard case .failure(let problem) = SceneFile.decode(Data(text.utf8)) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(problem != .badChecksum)
    }

    @Test func invalidUTF8IsRejected() {
        var bytes = Array("{\"format\":\"scenestore.scene\",\"scene\":\"".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\"}".utf8)
        guard case .failure = SceneFile.decode(Data(bytes)) else {
            Issue.record("accepted invalid UTF-8")
            return
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
                // Only damage outside the values (spacing, header digits) may pass.
                #expect(decoded.values == file.values)
            }
        }
    }
}

/// The quick header read behind skipping a reload takes only the exact
/// layout the writer produces, and the full read refuses a file that names
/// a field twice: the two can never disagree about a file's version.
@Suite struct HeaderReadTests {
    private let header = """
        {
          "format": "scenestore.scene",
          "version": 1,
          "scene": "main",
          "generation": 5,
          "incarnation": "0123456789abcdef",
          "writer": {"pid": 1, "token": "t"},
        """

    @Test func theWritersLayoutIsRead() {
        let data = Data((header + "\n  \"checksum\": \"x\",\n  \"values\": {}\n}\n").utf8)
        #expect(SceneFile.peekHeader(data).map { "\($0.incarnation) \($0.generation) \($0.writerToken)" } == "0123456789abcdef 5 t")
    }

    @Test(arguments: [
        // another field before the generation
        "{\n  \"format\": \"scenestore.scene\",\n  \"version\": 1,\n  \"extra\": 1,\n  \"scene\": \"main\",\n  \"generation\": 5,\n  \"incarnation\": \"a\",\n  \"writer\": ",
        // the incarnation spelt with an escape
        "{\n  \"format\": \"scenestore.scene\",\n  \"version\": 1,\n  \"scene\": \"main\",\n  \"generation\": 5,\n  \"incarnation\": \"a\\u0062\",\n  \"writer\": ",
        // a second generation where the incarnation belongs
        "{\n  \"format\": \"scenestore.scene\",\n  \"version\": 1,\n  \"scene\": \"main\",\n  \"generation\": 5,\n  \"generation\": 6,\n  \"incarnation\": \"a\",\n  \"writer\": ",
        // another spacing
        "{\"format\": \"scenestore.scene\", \"version\": 1, \"scene\": \"main\", \"generation\": 5, \"incarnation\": \"a\", \"writer\": ",
    ])
    func anyOtherLayoutIsLeftToTheFullRead(_ text: String) {
        #expect(SceneFile.peekHeader(Data((text + "{}}").utf8)) == nil)
    }

    @Test(arguments: ["generation", "incarnation", "scene", "values"])
    func aFieldNamedTwiceIsMalformed(_ field: String) {
        let values: [String: SceneValue] = ["a": .int(1)]
        let twice: String
        switch field {
        case "generation": twice = "\"generation\": 6"
        case "incarnation": twice = "\"incarnation\": \"fedcba9876543210\""
        case "scene": twice = "\"scene\": \"main\""
        default: twice = "\"values\": {}"
        }
        let text = header + "\n  \"checksum\": \"\(Checksum.of(values))\",\n  \"values\": {\"a\": {\"type\": \"int\", \"value\": 1}},\n  \(twice)\n}\n"
        guard case .failure(.malformed(let reason)) = SceneFile.decode(Data(text.utf8)) else {
            Issue.record("a file naming \(field) twice was read")
            return
        }
        #expect(reason.contains("twice"))
    }
}
