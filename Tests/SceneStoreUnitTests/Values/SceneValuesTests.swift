import Foundation
import Testing
@testable import SceneStore

/// A scene's values kept compact behave as a `[String: SceneValue]` does:
/// the same lookups, count and keys after any sets and removes, keys
/// equal as strings are (canonical equivalence) and kept in the spelling
/// first set, across the compactions that reclaim replaced entries.
@Suite struct SceneValuesTests {
    /// Keys that meet: ASCII ones, the same letter precomposed and
    /// decomposed (one key), a pair `String`'s `<` cannot order, and
    /// keys longer than a small string.
    static let keys = [
        "a", "b", "ab", "key1", "key10", "key2", "A", "\u{E9}", "e\u{301}", "\u{E9}:", "e\u{301}:", "\u{1E69}",
        "s\u{323}\u{307}", "s\u{307}\u{323}", "日本", "🧭", "ß", "ss", String(repeating: "k", count: 40), "\u{FEFF}",
    ]

    private func randomValue(_ rng: inout SceneFileFormatTests.SplitMix) -> SceneValue {
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: return .bool(Bool.random(using: &rng))
        case 1: return .int(Int(bitPattern: UInt(rng.next())))
        case 2: return .double([.nan, -0.0, 0.1, .infinity].randomElement(using: &rng) ?? 0)
        case 3: return .string(String(repeating: "é", count: Int.random(in: 0...10, using: &rng)))
        case 4: return .string(String(repeating: "x", count: Int.random(in: 60...70, using: &rng)))
        case 5: return .data(Data((0..<Int.random(in: 0...80, using: &rng)).map { UInt8(truncatingIfNeeded: $0) }))
        case 6: return .url(URL(string: "https://example.com/\(rng.next() % 100)") ?? URL(fileURLWithPath: "/"))
        case 7: return .url(URL(fileURLWithPath: "/tmp/a b/\(rng.next() % 10)"))
        default: return .int(Int(rng.next() % 3))
        }
    }

    private func check(_ values: SceneValues, against model: [String: SceneValue], _ context: @autoclosure () -> String) {
        #expect(values.count == model.count, "\(context())")
        for key in Self.keys {
            #expect(values[key] == model[key], "\(key.debugDescription) \(context())")
            #expect(values.entry(forKey: key)?.key.utf8.elementsEqual(model.index(forKey: key).map { model[$0].key.utf8 } ?? "".utf8) ?? (model[key] == nil),
                    "spelling of \(key.debugDescription) \(context())")
        }
        #expect(Set(values.keys) == Set(model.keys), "\(context())")
        #expect(values.dictionary == model, "\(context())")
    }

    @Test func randomSetsAndRemovesMatchADictionary() {
        for seed in UInt64(1)...40 {
            var rng = SceneFileFormatTests.SplitMix(state: seed)
            var values = SceneValues()
            var model: [String: SceneValue] = [:]
            for step in 0..<400 {
                let key = Self.keys.randomElement(using: &rng) ?? "a"
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    #expect(values.removeValue(forKey: key) == model.removeValue(forKey: key), "seed \(seed) step \(step)")
                } else {
                    let value = randomValue(&rng)
                    #expect(values.updateValue(value, forKey: key) == model.updateValue(value, forKey: key), "seed \(seed) step \(step)")
                }
                if step.isMultiple(of: 50) { values.trim() }
            }
            check(values, against: model, "seed \(seed)")
            // The same values inserted in another order are equal, and iterate alike.
            let again = SceneValues(values.reversed())
            #expect(again == values)
            #expect(again.map(\.key) == values.map(\.key))
        }
    }

    @Test func asciiKeysIterateInTheOrderOfTheirBytes() {
        let keys = (0..<500).map { "key\($0)" } + ["A", "Z", "_", "a", "~", ""]
        let values = SceneValues(keys.shuffled().map { ($0, SceneValue.int($0.count)) })
        #expect(values.keys == keys.sorted(by: utf8Precedes))
        #expect(values.keys == keys.sorted())
    }

    @Test func aKeyKeepsTheSpellingFirstSet() {
        var values: SceneValues = ["e\u{301}": .int(1)]
        #expect(values.updateValue(.int(2), forKey: "\u{E9}") == .int(1))
        #expect(values.count == 1)
        #expect(values.keys.first.map { Array($0.utf8) } == Array("e\u{301}".utf8))
        #expect(values["\u{E9}"] == .int(2))
        #expect(values.removeValue(forKey: "\u{E9}") == .int(2))
        #expect(values.isEmpty)
    }

    /// Values are read back as they were set: a large string and data
    /// whole, a URL as the instance set (its base kept), doubles bit for bit.
    @Test func valuesReadBackAsSet() throws {
        let base = try #require(URL(string: "https://example.com/a/"))
        let relative = try #require(URL(string: "b?c=1", relativeTo: base))
        let large = String(repeating: "🧭", count: 1000)
        var values = SceneValues()
        values["url"] = .url(relative)
        values["large"] = .string(large)
        values["data"] = .data(Data(repeating: 7, count: 100_000))
        values["min"] = .int(.min)
        values["double"] = .double(-0.0)
        guard case .url(let url)? = values["url"] else { Issue.record("no url"); return }
        #expect(url.baseURL == base && url.relativeString == "b?c=1")
        #expect(values["large"] == .string(large))
        #expect(values["data"] == .data(Data(repeating: 7, count: 100_000)))
        #expect(values["min"] == .int(.min))
        guard case .double(let double)? = values["double"] else { Issue.record("no double"); return }
        #expect(double.bitPattern == (-0.0).bitPattern)
    }

    /// Replacing one value over and over keeps the bytes within a bound:
    /// the replaced entries are reclaimed.
    @Test func replacedEntriesAreReclaimed() {
        var values = SceneValues((0..<100).map { ("key\($0)", SceneValue.string("value number \($0)")) })
        for round in 0..<10_000 {
            values["key\(round % 100)"] = .string(String(repeating: "v", count: round % 90))
        }
        var fresh = SceneValues()
        for (key, value) in values { fresh[key] = value }
        #expect(values == fresh)
        #expect(values.storedBytes <= 2 * fresh.storedBytes + 512, "\(values.storedBytes) against \(fresh.storedBytes)")
    }
}
