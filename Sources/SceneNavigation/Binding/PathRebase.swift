/// How one side's edit of a navigation path lands on a path that other
/// sides changed meanwhile: the pure decision behind every save of a
/// binding, tested on its own (`PathRebaseTests`).
///
/// An edit of a stack is "keep the first `p` elements of the path it was
/// made on (`base`), then push what follows in `local`". Applied to
/// `stored` (what other sides made of `base`), it removes the elements of
/// `base` it popped where they still sit at their place (the part of
/// `base` that `stored` still starts with) and pushes its own elements on
/// top. Whatever other sides pushed stays, in their order, so for any
/// interleaving of pushes and pops of two sides, every element a side
/// pushed and did not pop itself is in the result, in that side's order.
/// A pop of an element that another side moved (it popped below it) is
/// not applied: losing a push is never the price of applying a pop.
enum PathRebase {
    /// A local edit: how much of `base` it kept, and what it pushed.
    struct Edit<Element: Equatable> {
        /// How many elements of `base` the edit kept, from the bottom.
        let kept: Int
        let base: [Element]
        let pushed: ArraySlice<Element>

        init(base: [Element], local: [Element]) {
            kept = commonPrefixCount(base, local)
            self.base = base
            pushed = local[kept...]
        }

        /// The elements of `stored` that stay: all but the elements of
        /// `base` this edit popped, where they are still in place. Elements
        /// that `isRestored` says this side cannot read (kept aside) stay
        /// as long as the readable element under them stays.
        /// - Parameter isRestored: whether `stored[index]` is an element
        ///   this side reads; the others are not compared with `base`.
        func kept(in stored: [Element], isRestored: (Int) -> Bool) -> [Element] {
            let readable = stored.indices.filter(isRestored).map { stored[$0] }
            let inPlace = commonPrefixCount(base, readable)
            let popped = kept..<max(kept, inPlace)
            var result: [Element] = []
            result.reserveCapacity(stored.count)
            var readableIndex = 0
            var underKept = true
            for index in stored.indices {
                if isRestored(index) {
                    underKept = !popped.contains(readableIndex)
                    readableIndex += 1
                }
                if underKept { result.append(stored[index]) }
            }
            return result
        }
    }
}

/// How many elements `a` and `b` share from the start.
func commonPrefixCount<Element: Equatable>(_ a: [Element], _ b: [Element]) -> Int {
    zip(a, b).prefix { $0 == $1 }.count
}
