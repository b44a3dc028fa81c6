extension ScenePath: RandomAccessCollection {
    /// An element of the path, with its dynamic type erased.
    public typealias Element = any ScenePathElement

    /// The position of the root element: always `0`.
    public var startIndex: Int { 0 }

    /// The position one past the top element: the path's `count`.
    public var endIndex: Int { storage.count }

    /// The number of elements above the root.
    public var count: Int { storage.count }

    /// Whether the path is at the root.
    public var isEmpty: Bool { storage.isEmpty }

    /// The element at `position`; traps when `position` is out of bounds, as
    /// an array does; `path[position] as? Book` reads it as its type.
    public subscript(position: Int) -> any ScenePathElement {
        storage[position]
    }
}
