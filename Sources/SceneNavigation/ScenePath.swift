/// The requirements on a value that can sit in a ``ScenePath``.
///
/// `Hashable` gives the path its equality, `Codable` lets it persist, and
/// `Sendable` lets it cross into tasks and stores.
public typealias ScenePathElement = Hashable & Codable & Sendable

/// A type-erased navigation path: a stack of values of mixed types, from the
/// root (index 0) to the screen on top (the last element).
///
/// Push with ``append(_:)``, go back with ``removeLast(_:)`` or
/// ``popLast()``, return to the root with ``removeAll()``. The path is a
/// `RandomAccessCollection` of `any ScenePathElement`, so `count`,
/// `isEmpty`, `first`, `last`, indexing and `for`-loops work as on an
/// array; read an element as its type with `as?`:
/// `path.last as? Book`.
///
/// Two paths are equal when they hold equal elements of the *same dynamic
/// type* in the same order; `Int8(1)` and `1` are different elements (unlike
/// `AnyHashable`, which conflates them). A path restored from its encoded form
/// is equal to the path that was encoded.
///
/// To persist a path, store it through ``PathCodec/scenePath(types:policy:)``,
/// in a scene key (``PathBinding``) or on its own (``PathCodec/encode(_:)``).
/// Its ``ScenePathTypes`` registry names the element types that can be
/// written and read back.
///
/// ```swift
/// var path = ScenePath()
/// path.append(42)
/// path.append("favorites")
/// path.removeLast()          // back
/// path.removeAll()           // pop to root
/// ```
public struct ScenePath: Sendable {
    /// The elements, root first.
    var storage: [any ScenePathElement]

    /// Creates an empty path (the root).
    public init() {
        storage = []
    }

    /// Creates a path holding the elements of a sequence, in order.
    ///
    /// - Parameter elements: The elements, root first. To build a path of
    ///   mixed types, start from ``init()`` and ``append(_:)`` each value.
    public init<Elements: Sequence>(_ elements: Elements) where Elements.Element: ScenePathElement {
        storage = elements.map { $0 }
    }

    /// Pushes a value on top of the path.
    ///
    /// The value is stored with its dynamic type; that type must be in the
    /// registry used to encode the path (see ``ScenePathTypes``). An
    /// optional is a type of its own (`Optional<Int>`, not `Int`): unwrap a
    /// value before pushing it.
    ///
    /// - Parameter element: The value to push.
    public mutating func append(_ element: any ScenePathElement) {
        storage.append(element)
    }

    /// Removes up to `k` elements from the top of the path.
    ///
    /// Removing more elements than the path holds is not an error: the path
    /// is clamped at the root and the return value says how many elements
    /// were actually removed. This keeps "go back" safe after a lenient
    /// restore dropped elements the caller expected to be there.
    ///
    /// - Parameter k: How many elements to remove; `1` (the default) is one
    ///   step back. Must not be negative.
    /// - Returns: The number of elements removed, `min(k, count)`.
    /// - Precondition: `k >= 0`.
    @discardableResult
    public mutating func removeLast(_ k: Int = 1) -> Int {
        precondition(k >= 0, "ScenePath.removeLast(_:) needs a non-negative count, got \(k)")
        let removed = Swift.min(k, storage.count)
        storage.removeLast(removed)
        return removed
    }

    /// Removes every element: pops back to the root.
    public mutating func removeAll() {
        storage.removeAll()
    }

    /// Removes the top element and returns it.
    ///
    /// - Returns: The element removed, or `nil` at the root.
    public mutating func popLast() -> (any ScenePathElement)? {
        storage.popLast()
    }
}
