import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// A stored key or value cannot rewrite the reader's terminal: plain
/// output escapes control characters as `\u{XX}` (and `\` as `\\`);
/// `--json` output stays exact.
// Hang guard: its slowest test took 11 s in its layer here, 61 s in the whole suite (every test at once on 2 cores); 2 minutes.
@Suite(.timeLimit(.minutes(2)))
struct TerminalEscapingTests {
    /// Clear screen, retitle the window, bell, C1 CSI, DEL, a backslash.
    static let hostile = "red\u{1B}[2J\u{1B}]0;owned\u{07}\\n\u{9B}31m\u{7F}\tend"
    static let escaped = #"red\u{1B}[2J\u{1B}]0;owned\u{07}\\n\u{9B}31m\u{7F}\u{09}end"#
    static let hostileKey = "key\u{1B}[1m"
    static let escapedKey = #"key\u{1B}[1m"#

    /// No byte that starts or is a control sequence: C0, DEL, or a C1
    /// character (UTF-8 `C2 80`...`C2 9F`).
    static func isTerminalSafe(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        for (index, byte) in bytes.enumerated() {
            if byte < 0x20 && byte != 0x0A { return false }
            if byte == 0x7F { return false }
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return false }
        }
        return true
    }

    @Test func getAndShowEscapeAndJSONIsExact() async throws {
        let fixture = try await SceneStoreFixture()
        let set = try await scenes(["set", "--scene", "a", Self.hostileKey, "--string", Self.hostile], root: fixture.root)
        #expect(set.status == 0, "\(set.stderr)")

        let get = try await scenes(["get", "--scene", "a", Self.hostileKey], root: fixture.root)
        #expect(get.stdout == Self.escaped + "\n")

        let getJSON = try await scenes(["get", "--json", "--scene", "a", Self.hostileKey], root: fixture.root)
        #expect(Self.isTerminalSafe(getJSON.stdout), "\(getJSON.stdout.debugDescription)")
        #expect(decodeJSON(SceneValue.self, from: getJSON.stdout) == .string(Self.hostile))

        let show = try await scenes(["show", "--scene", "a"], root: fixture.root)
        #expect(Self.isTerminalSafe(show.stdout), "\(show.stdout.debugDescription)")
        #expect(show.stdout.contains("  \(Self.escapedKey)  string  \(Self.escaped)\n"), "\(show.stdout)")

        let showJSON = try await scenes(["show", "--json", "--scene", "a"], root: fixture.root)
        #expect(Self.isTerminalSafe(showJSON.stdout), "\(showJSON.stdout.debugDescription)")
        struct Dump: Decodable { let values: [String: SceneValue] }
        #expect(decodeJSON(Dump.self, from: showJSON.stdout)?.values == [Self.hostileKey: .string(Self.hostile)])
    }

    /// Bidi controls reorder the rest of the line (`abc\u{202E}fed` shows
    /// as `abcdef`), so a value could show as another: printed escaped,
    /// also in messages; JSON escapes them too and stays exact.
    @Test func bidiControlsAreEscaped() async throws {
        let fixture = try await SceneStoreFixture()
        let bidi: [Unicode.Scalar] = [
            "\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
            "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
        ]
        func hasBidi(_ text: String) -> Bool { text.unicodeScalars.contains(where: bidi.contains) }
        let value = "pay " + bidi.map { "\($0)x" }.joined()
        let escaped = "pay " + bidi.map { "\\u{\(String($0.value, radix: 16, uppercase: true))}x" }.joined()
        let key = "key\u{202E}yek"
        #expect(try await scenes(["set", "--scene", "a", key, "--string", value], root: fixture.root).status == 0)

        let get = try await scenes(["get", "--scene", "a", key], root: fixture.root)
        #expect(get.stdout == escaped + "\n", "\(get.stdout.debugDescription)")
        let show = try await scenes(["show", "--scene", "a"], root: fixture.root)
        #expect(show.stdout.contains("  key\\u{202E}yek  string  \(escaped)\n"), "\(show.stdout.debugDescription)")

        let getJSON = try await scenes(["get", "--json", "--scene", "a", key], root: fixture.root)
        #expect(!hasBidi(getJSON.stdout) && getJSON.stdout.contains(#"\u202e"#), "\(getJSON.stdout.debugDescription)")
        #expect(decodeJSON(SceneValue.self, from: getJSON.stdout) == .string(value))
        let showJSON = try await scenes(["show", "--json", "--scene", "a"], root: fixture.root)
        #expect(!hasBidi(showJSON.stdout), "\(showJSON.stdout.debugDescription)")
        struct Dump: Decodable { let values: [String: SceneValue] }
        #expect(decodeJSON(Dump.self, from: showJSON.stdout)?.values == [key: .string(value)])

        let missing = try await scenes(["get", "--scene", "a", "k\u{202E}"], root: fixture.root)
        #expect(missing.status == 1)
        #expect(!hasBidi(missing.stderr) && missing.stderr.contains(#"k\u{202E}"#), "\(missing.stderr.debugDescription)")
    }

    @Test func watchEscapesInText() async throws {
        let fixture = try await SceneStoreFixture()
        let watch = try RunningScenes(["watch", "--scene", "w"], root: fixture.root)
        let log = LineLog(watch)
        #expect(await log.next { $0.hasPrefix("watching scene w") } != nil)
        #expect(try await scenes(["set", "--scene", "w", Self.hostileKey, "--string", Self.hostile], root: fixture.root).status == 0)
        let line = try #require(await log.next { $0.contains("->") })
        #expect(Self.isTerminalSafe(line), "\(line.debugDescription)")
        #expect(line.contains("\(Self.escapedKey): (none) -> \(Self.escaped)"), "\(line)")
        watch.kill(SIGTERM)
        _ = await watch.exitStatus(within: .seconds(30))
    }

    @Test func catalogListEscapesTitles() async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["catalog", "reset"], root: fixture.root).status == 0)
        let file = fixture.root.appendingPathComponent("catalog/library.json")
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var songs = try #require(catalog["songs"] as? [[String: Any]])
        songs[0]["title"] = Self.hostile
        catalog["songs"] = songs
        try JSONSerialization.data(withJSONObject: catalog).write(to: file)
        let list = try await scenes(["catalog", "list"], root: fixture.root)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(Self.isTerminalSafe(list.stdout), "\(list.stdout.debugDescription)")
        #expect(list.stdout.contains("song   \(Self.escaped) - "))
        let json = try await scenes(["catalog", "list", "--json"], root: fixture.root)
        #expect(Self.isTerminalSafe(json.stdout), "\(json.stdout.debugDescription)")
        #expect(json.stdout.contains(#"red\u001b[2J"#))
    }
}
