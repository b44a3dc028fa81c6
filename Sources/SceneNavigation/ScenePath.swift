/// The requirements on a value that can sit in a ``ScenePath``.
///
/// `Hashable` gives the path its equality, `Codable` lets it persist, and
/// `Sendable` lets it cross into tasks and stores.
public typealias ScenePathElement = Hashable & Codable & Sendable

/// A type-erased navigation path: a stack of values of mixed types, from the
/// root (index 0) to the screen on top (the last element).
///
/// Push with ``append(_:)-(Value)``, go back with ``removeLast(_:)``, return to the
/// root with ``removeAll()``. The path is a `RandomAccessCollection` of
/// `any ScenePathElement`, so `count`, `isEmpty`, `first`, `last`, indexing
/// and `for`-loops work as on an array; ``last(as:)`` and
/// ``element(at:as:)`` give typed access.
///
/// Two paths are equal when they hold equal elements of the *same dynamic
/// type* in the same order; `Int8(1)` and `1` are different elements (unlike
/// `AnyHashable`, which conflates them). A path restored from its encoded form
/// is equal to the path that was encoded.
///
/// To persist a path, encode it with ``encoded(types:)`` and restore it with
/// ``restore(from:types:policy:)`` or ``init(decoding:types:policy:)``. Both
/// go through a ``ScenePathTypes`` registry: only element types registered
/// there can be written or read back.
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
    ///   mixed types, start from ``init()`` and ``append(_:)-(Value)`` each value.
    public init<Elements: Sequence>(_ elements: Elements) where Elements.Element: ScenePathElement {
        storage = elements.map { $0 }
    }

    /// Pushes a value on top of the path.
    ///
    /// The value is stored with its dynamic type; that type must be in the
    /// registry used to encode the path (see ``ScenePathTypes``).
    ///
    /// - Parameter value: The value to push.
    public mutating func append<Value: ScenePathElement>(_ value: Value) {
        storage.append(value)
    }

    /// Pushes an optional value, as `Optional<Value>`.
    ///
    /// This overload exists to warn at compile time: pushing an optional is
    /// almost always a mistake (`URL(string:)` returns one), and it stores
    /// `Optional<Value>`, a type of its own that must be registered on its own
    /// to be encoded. Unwrap the value first.
    @available(*, deprecated, message: "unwrap the optional before pushing it onto the path")
    public mutating func append<Value: ScenePathElement>(_ value: Value?) {
        storage.append(value)
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

    /// The top element, if there is one and it is a `Value`.
    ///
    /// - Parameter type: The type to cast the last element to.
    /// - Returns: The last element as a `Value`, or `nil` if the path is
    ///   empty or its last element is of another type.
    public func last<Value>(as type: Value.Type) -> Value? {
        storage.last.flatMap { $0 as? Value }
    }

    /// The element at a position, if the position exists and holds a `Value`.
    ///
    /// - Parameters:
    ///   - position: A position counted from the root (`0`).
    ///   - type: The type to cast the element to.
    /// - Returns: The element as a `Value`, or `nil` if `position` is out of
    ///   bounds or the element there is of another type.
    public func element<Value>(at position: Int, as type: Value.Type) -> Value? {
        guard storage.indices.contains(position) else { return nil }
        return storage[position] as? Value
    }
}
