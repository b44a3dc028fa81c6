import Foundation
import PropertyBased
@testable import SceneNavigation
import Testing

/// Random sequences of push / back / forward / root / deep link, checked
/// against a plain model of a browser tab's history.
@Suite struct NavigationHistoryPropertyTests {
    /// A browser tab: every page of the line, and how many are shown.
    struct BrowserModel {
        var entries: [Int] = []
        var shown = 0
        var recent: [Int] = []  // newest first
        let limit: Int

        var path: [Int] { Array(entries[..<shown]) }
        var forwardEntries: [Int] { Array(entries[shown...]) }  // next first

        mutating func viewedTop() {
            guard let top = path.last else { return }
            recent.removeAll { $0 == top }
            recent.insert(top, at: 0)
            recent = Array(recent.prefix(limit))
        }

        mutating func push(_ page: Int) {
            entries = path + [page]
            shown += 1
            viewedTop()
        }

        mutating func back(_ k: Int) -> Int {
            let popped = min(k, shown)
            shown -= popped
            entries = Array(entries.prefix(shown + limit))
            if popped > 0 { viewedTop() }
            return popped
        }

        mutating func forward() -> Bool {
            guard shown < entries.count else { return false }
            shown += 1
            viewedTop()
            return true
        }

        mutating func replace(with pages: [Int]) {
            entries = pages
            shown = pages.count
            viewedTop()
        }
    }

    enum Step {
        case push(Int)
        case back(Int)
        case forward
        case root
        case replace([Int])

        init(_ seed: Int) {
            switch seed % 10 {
            case 0...2: self = .push(seed % 17)
            case 3...4: self = .back(1)
            case 5: self = .back(seed % 4)
            case 6...7: self = .forward
            case 8: self = .root
            default: self = .replace(seed.isMultiple(of: 3) ? [] : [seed % 5, seed % 7])
            }
        }
    }

    static let steps = Gen.int(in: 0...999).array(of: 0...80)
    static let limits = Gen.int(in: 1...6)

    /// Runs `seeds` on a typed history and on the model, checking each
    /// step's result on the way.
    static func run(_ seeds: [Int], limit: Int) -> (NavigationHistory<[Int]>, BrowserModel) {
        var history = NavigationHistory<[Int]>(limit: limit)
        var model = BrowserModel(limit: limit)
        for seed in seeds {
            switch Step(seed) {
            case .push(let page):
                history.push(page)
                model.push(page)
            case .back(let k):
                #expect(history.back(k) == model.back(k))
            case .forward:
                #expect(history.forward() == model.forward())
            case .root:
                history.popToRoot()
                _ = model.back(model.shown)
            case .replace(let pages):
                history.replacePath(with: pages)
                model.replace(with: pages)
            }
        }
        return (history, model)
    }

    @Test func historyMatchesABrowserTab() async {
        await propertyCheck(count: 400, input: Self.steps, Self.limits) { seeds, limit in
            let (history, model) = Self.run(seeds, limit: limit)
            #expect(history.path == model.path)
            #expect(history.forwardSteps == model.forwardEntries)
            #expect(history.forwardSteps.count == model.forwardEntries.count)
            #expect(history.recentlyViewed == model.recent)
        }
    }

    @Test func scenePathHistoryMatchesTheTypedOne() async {
        await propertyCheck(count: 200, input: Self.steps) { seeds in
            let (typed, _) = Self.run(seeds, limit: 50)
            var erased = NavigationHistory<ScenePath>()
            for seed in seeds {
                switch Step(seed) {
                case .push(let page): erased.push(page)
                case .back(let k): erased.back(k)
                case .forward: erased.forward()
                case .root: erased.popToRoot()
                case .replace(let pages): erased.replacePath(with: ScenePath(pages))
                }
            }
            #expect(erased.path == ScenePath(typed.path))
            #expect(erased.forwardSteps.map { $0 as? Int } == typed.forwardSteps)
            #expect(erased.recentlyViewed.map { $0 as? Int } == typed.recentlyViewed)
        }
    }

    @Test func encodingThenDecodingIsTheIdentity() async {
        let typed = PathCodec.history(.stack(of: Int.self), limit: 6)
        let erased = PathCodec.history(.scenePath(types: testTypes), limit: 6)
        await propertyCheck(count: 300, input: Self.steps) { seeds in
            let (history, _) = Self.run(seeds, limit: 6)
            let data = try typed.encode(history)
            let decoded = try typed.decode(data)
            #expect(decoded.path == history)
            #expect(decoded.dropped.isEmpty)
            #expect(try typed.encode(decoded.path) == data)

            var mixed = NavigationHistory<ScenePath>(limit: 6)
            for seed in seeds where seed % 10 < 3 { mixed.push(String(seed, radix: 36)) }
            mixed.back(2)
            let mixedData = try erased.encode(mixed)
            #expect(try erased.decode(mixedData).path == mixed)
        }
    }

    @Test func aHistoryWithoutEntriesIsStoredExactlyAsItsPath() async {
        await propertyCheck(count: 100, input: Gen.int(in: 0...99).array(of: 0...10)) { pages in
            let history = NavigationHistory<[Int]>(pages)
            let plain = try pages.encodedPath()
            #expect(try PathCodec.history(.stack(of: Int.self)).encode(history) == plain)
        }
    }
}
