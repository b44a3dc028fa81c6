import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

/// `set --int` and `--double` take JSON's number syntax and nothing a
/// user is unlikely to have meant.
// Hang guard: its slowest test took 20 s in its layer here, 102 s in the whole suite (every test at once on 2 cores); 3 minutes.
@Suite(.timeLimit(.minutes(3)))
struct NumberParsingTests {
    static let refused: [(flag: String, text: String)] = [
        ("--int", "+5"), ("--int", " 5"), ("--int", "5 "), ("--int", "0x10"), ("--int", "1_000"),
        ("--int", ""), ("--int", "-"), ("--int", "05"), ("--int", "--5"), ("--int", "5.0"),
        ("--int", "1e3"), ("--int", "9223372036854775808"), ("--int", "\u{0661}\u{0662}"), ("--int", "1\u{301}"),
        ("--double", "1e400"), ("--double", "-1e400"), ("--double", "1e-400"), ("--double", "0x1p3"),
        ("--double", "-nan"), ("--double", "snan"), ("--double", "nan(0x1)"), ("--double", "NaN"),
        ("--double", "Inf"), ("--double", "infinity"), ("--double", "+inf"), ("--double", ".5"),
        ("--double", "1."), ("--double", ""), ("--double", " 1"), ("--double", "1 "), ("--double", "1e"),
        ("--double", "1e+"), ("--double", "01.5"), ("--double", "1_0.5"), ("--double", "+1.5"),
        ("--double", "0x10"), ("--double", "1.5.2"), ("--double", "1,5"), ("--double", "-.5"),
    ]

    static let accepted: [(flag: String, text: String, value: SceneValue)] = [
        ("--int", "0", .int(0)), ("--int", "-0", .int(0)), ("--int", "42", .int(42)), ("--int", "-5", .int(-5)),
        ("--int", "9223372036854775807", .int(.max)), ("--int", "-9223372036854775808", .int(.min)),
        ("--double", "0.5", .double(0.5)), ("--double", "-0.5", .double(-0.5)), ("--double", "2", .double(2)),
        ("--double", "6.02e23", .double(6.02e23)), ("--double", "1E-5", .double(1e-5)), ("--double", "1e+2", .double(100)),
        ("--double", "1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("--double", "5e-324", .double(.leastNonzeroMagnitude)),
        ("--double", "inf", .double(.infinity)), ("--double", "-inf", .double(-.infinity)),
    ]

    @Test func refusedFormsAreUsageErrorsAndWriteNothing() async throws {
        let fixture = try await SceneStoreFixture()
        let root = fixture.directory.appendingPathComponent("absent")
        for (flag, text) in Self.refused {
            let result = try await scenes(["set", "--scene", "a", "k", flag, text], root: root)
            #expect(result.status == 64, "\(flag) \(text.debugDescription) was accepted: \(result.stderr)")
            #expect(result.stderr.contains(text.debugDescription), "\(flag) \(text.debugDescription): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    @Test func acceptedFormsStoreWhatWasWritten() async throws {
        let fixture = try await SceneStoreFixture()
        for (index, (flag, text, value)) in Self.accepted.enumerated() {
            let key = "k\(index)"
            let set = try await scenes(["set", "--scene", "a", key, flag, text], root: fixture.root)
            #expect(set.status == 0, "\(flag) \(text): \(set.stderr)")
            let get = try await scenes(["get", "--json", "--scene", "a", key], root: fixture.root)
            #expect(decodeJSON(SceneValue.self, from: get.stdout) == value, "\(flag) \(text) stored \(get.stdout)")
        }
    }

    @Test func exactlyNanIsAccepted() async throws {
        let fixture = try await SceneStoreFixture()
        #expect(try await scenes(["set", "--scene", "a", "k", "--double", "nan"], root: fixture.root).status == 0)
        let get = try await scenes(["get", "--json", "--scene", "a", "k"], root: fixture.root)
        guard case .double(let stored)? = decodeJSON(SceneValue.self, from: get.stdout) else {
            Issue.record("stored \(get.stdout)")
            return
        }
        #expect(stored.isNaN)
    }
}
