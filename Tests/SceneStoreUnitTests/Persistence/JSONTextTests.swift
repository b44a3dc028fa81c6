import Foundation
import Testing
@testable import SceneStore

/// The JSON text the scene file is written in: strings copied whole when
/// they need no escape, escaped byte by byte when they do, and the byte
/// count a log's size bound takes without encoding, which must be the
/// encoding's to the byte.
@Suite struct JSONTextTests {
    static let keys = ["a", "key0", "with \"quotes\"", "back\\slash", "tab\tnew\nline\r", "bell\u{7}", "é e\u{301} ☃ 🎈", ""]
    static let values: [SceneValue] = [
        .bool(true), .bool(false), .int(0), .int(-42), .int(.max), .int(.min),
        .double(0.1), .double(-1e-300), .double(.nan), .double(.infinity), .double(-.infinity),
        .string(""), .string("plain"), .string("\"\\\u{0}\u{1f}\u{7f}"), .string("multi\nline\ttext"),
        .url(URL(string: "https://example.com/a?b=c#d")!), .data(Data([0, 1, 2, 254, 255])),
    ]

    @Test func theByteCountOfAMemberIsItsEncodingsCount() {
        for key in Self.keys {
            for value in Self.values {
                var text = JSONText(capacity: 0)
                text.member(key, value)
                #expect(JSONText.memberByteCount(key, value) == text.bytes.count, "\(key): \(value)")
            }
        }
    }

    @Test func stringsAreEscapedWhereJSONNeedsIt() throws {
        let cases: [(String, String)] = [
            ("plain", #""plain""#),
            ("say \"hi\"", #""say \"hi\"""#),
            ("a\\b", #""a\\b""#),
            ("l1\nl2\r\t", #""l1\nl2\r\t""#),
            ("\u{0}\u{1f}", #""\u0000\u001f""#),
            ("é☃🎈", "\"é☃🎈\""),
        ]
        for (text, expected) in cases {
            var out = JSONText(capacity: 0)
            out.string(text)
            #expect(String(decoding: out.bytes, as: UTF8.self) == expected)
            #expect(JSONText.stringByteCount(text) == out.bytes.count)
            // What JSONSerialization reads back is the text itself.
            let decoded = try JSONSerialization.jsonObject(with: Data(out.bytes), options: .fragmentsAllowed) as? String
            #expect(decoded == text)
        }
    }

    /// A bridged string (no contiguous UTF-8 of its own) takes the byte-by-byte path, to the same text.
    @Test func aBridgedStringEncodesAsANativeOne() {
        let bridged = NSString(string: "bridged \"text\" é").description
        var out = JSONText(capacity: 0)
        out.string(bridged)
        #expect(String(decoding: out.bytes, as: UTF8.self) == #""bridged \"text\" é""#)
    }
}
