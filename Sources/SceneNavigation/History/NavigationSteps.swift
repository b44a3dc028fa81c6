/// A navigation path that a ``NavigationHistory`` can keep: a stack of
/// steps (screens), pushed and popped one at a time.
///
/// ``ScenePath`` (steps of any registered type) and arrays (typed stacks)
/// are such paths; their own `append(_:)` and `popLast()` are the
/// requirements.
public protocol NavigationSteps: Equatable {
    /// One screen of the path.
    associatedtype Step

    /// The empty path: the root.
    init()

    /// Pushes `step` on top.
    mutating func append(_ step: Step)

    /// Pops the step on top and returns it (`nil` at the root).
    mutating func popLast() -> Step?
}

extension ScenePath: NavigationSteps {}

extension Array: NavigationSteps where Element: Equatable {}

extension NavigationSteps {
    /// The step on top, if any.
    var top: Step? {
        var copy = self
        return copy.popLast()
    }

    /// The steps, bottom first.
    var steps: [Step] {
        var copy = self
        var reversed: [Step] = []
        while let step = copy.popLast() { reversed.append(step) }
        return reversed.reversed()
    }

    /// A path of `steps`, bottom first.
    init(steps: some Sequence<Step>) {
        self.init()
        for step in steps { append(step) }
    }

    /// Whether two steps are the same screen (equal as one-step paths).
    static func sameStep(_ a: Step, _ b: Step) -> Bool {
        Self(steps: [a]) == Self(steps: [b])
    }
}
