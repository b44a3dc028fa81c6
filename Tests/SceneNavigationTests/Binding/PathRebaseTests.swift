import PropertyBased
@testable import SceneNavigation
import Testing

/// The rebase that every binding save goes through, on its own: two sides
/// editing one stored path in any interleaving never lose a push.
@Suite struct PathRebaseTests {
    /// One side of the path (a window): the path it last saw stored
    /// (`base`), its own path now (`local`), and its pushes and pops.
    struct Side {
        let name: String
        var base: [String] = []
        var local: [String] = []
        var pushed: [String] = []
        /// Everything this side popped: its own pushes, or others' it saw.
        var popped: Set<String> = []

        /// Commits: rebases its edit onto `stored`. `shows` the result (the
        /// binding's usual case), or, as when the model moved on during the
        /// commit, keeps editing from its own path.
        mutating func commit(onto stored: inout [String], shows: Bool) {
            stored = PathRebase.rebase(base: base, local: local, stored: stored)
            base = shows ? stored : local
            if shows { local = stored }
        }

        mutating func step(_ seed: Int, stored: inout [String]) {
            switch seed % 10 {
            case 0...4:
                let element = "\(name)\(pushed.count)"
                pushed.append(element)
                local.append(element)
            case 5...6:
                let count = min(local.count - 1, 1 + seed % 3)  // the root stays
                popped.formUnion(local.suffix(count))
                local.removeLast(count)
            case 7...8:
                commit(onto: &stored, shows: true)
            default:
                commit(onto: &stored, shows: false)
            }
        }

        /// Every element it pushed that no side popped, in its order.
        func mustSurvive(poppedBy sides: [Side]) -> [String] {
            pushed.filter { element in !sides.contains { $0.popped.contains(element) } }
        }
    }

    static let interleavings = Gen.int(in: 0...999).array(of: 0...80)

    /// A pop applies to what the popping side saw: its own pushes, or
    /// another side's once shown. Nothing else ever disappears.
    @Test func twoSidesNeverLoseAPushThatNoSidePopped() async {
        await propertyCheck(count: 500, input: Self.interleavings) { seeds in
            var stored = ["root"]
            var sides = [Side(name: "a", base: stored, local: stored), Side(name: "b", base: stored, local: stored)]
            for seed in seeds {
                sides[seed % 2].step(seed / 2, stored: &stored)
            }
            for index in sides.indices {
                sides[index].commit(onto: &stored, shows: true)
            }
            for side in sides {
                let survivors = stored.filter { $0.hasPrefix(side.name) }
                let expected = side.mustSurvive(poppedBy: sides)
                // In the side's order: what survives of its pushes, as a subsequence.
                #expect(expected.allSatisfy(survivors.contains), "\(side.name) lost \(expected.filter { !survivors.contains($0) }) from \(stored)")
                #expect(survivors.filter(expected.contains) == expected, "\(side.name)'s order in \(stored)")
            }
            #expect(stored.first == "root")
        }
    }

    @Test func aloneTheEditIsTheResult() async {
        await propertyCheck(count: 300, input: Self.interleavings) { seeds in
            var stored = ["root"]
            var side = Side(name: "a", base: stored, local: stored)
            for seed in seeds {
                side.step(seed, stored: &stored)
                if seed % 10 >= 7 { #expect(stored == side.local || stored == side.base) }
            }
            side.commit(onto: &stored, shows: true)
            #expect(stored == side.local)
        }
    }

    @Test func examples() {
        // Both pushed on the same base: the other's push stays under mine.
        #expect(PathRebase.rebase(base: ["r"], local: ["r", "a"], stored: ["r", "b"]) == ["r", "b", "a"])
        // My pop of an element still in place applies; the other's push on it stays.
        #expect(PathRebase.rebase(base: ["r", "x"], local: ["r"], stored: ["r", "x", "b"]) == ["r", "b"])
        // The other popped below my base: my pushes land on what is left.
        #expect(PathRebase.rebase(base: ["r", "x", "y"], local: ["r", "x", "y", "a"], stored: ["r"]) == ["r", "a"])
        // A commit overtaken by another's push, then edited further (the model moved on).
        #expect(PathRebase.rebase(base: ["r", "a1"], local: ["r", "a1", "a2"], stored: ["r", "b1", "a1"]) == ["r", "b1", "a1", "a2"])
    }
}

extension PathRebase {
    /// The merged path: `local` (edited from `base`) rebased onto `stored`.
    static func rebase<Element: Equatable>(base: [Element], local: [Element], stored: [Element]) -> [Element] {
        let edit = Edit(base: base, local: local)
        return edit.kept(in: stored, isRestored: { _ in true }) + edit.pushed
    }
}
