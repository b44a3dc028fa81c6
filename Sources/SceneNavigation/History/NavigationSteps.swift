/// A navigation path that a ``NavigationHistory`` can keep: a stack of
/// steps (screens), pushed and popped one at a time.
///
/// ``ScenePath`` (steps of any registered type) and arrays (typed stacks)
/// are such paths.
public protocol NavigationSteps: Equatable {
    /// One screen of the path.
    associatedtype Step

    /// The empty path: the root.
    init()

    /// How many steps are above the root.
    var count: Int { get }

    /// The step on top, if any.
    var lastStep: Step? { get }

    /// Pushes `step` on top.
    mutating func appendStep(_ step: Step)

    /// Pops the step on top and returns it (`nil` at the root).
    mutating func removeLastStep() -> Step?
}

extension ScenePath: NavigationSteps {
    public var lastStep: (any ScenePathElement)? { storage.last }

    public mutating func appendStep(_ step: any ScenePathElement) {
        storage.append(step)
    }

    public mutating func removeLastStep() -> (any ScenePathElement)? {
        storage.popLast()
    }
}

extension Array: NavigationSteps where Element: Equatable {
    public var lastStep: Element? { last }

    public mutating func appendStep(_ step: Element) {
        append(step)
    }

    public mutating func removeLastStep() -> Element? {
        popLast()
    }
}

extension NavigationSteps {
    /// The steps, bottom first.
    var steps: [Step] {
        var copy = self
        var reversed: [Step] = []
        reversed.reserveCapacity(count)
        while let step = copy.removeLastStep() { reversed.append(step) }
        return reversed.reversed()
    }

    /// A path of `steps`, bottom first.
    init(steps: some Sequence<Step>) {
        self.init()
        for step in steps { appendStep(step) }
    }

    /// Whether two steps are the same screen (equal as one-step paths).
    static func sameStep(_ a: Step, _ b: Step) -> Bool {
        Self(steps: [a]) == Self(steps: [b])
    }
}
